"""The daemon process: Config → serve() = startup → main_loop → shutdown (uvicorn style).

Signal handlers only set flags (first SIGINT/SIGTERM: should_exit; second: force_exit) and
the previous handlers are restored on the way out. Long-lived tasks are kept in a set;
shutdown kills every instance (each reported KILLED), lets the outbox drain for a moment,
closes the socket, waits for the tasks, then cancels what is left. One 0.1 s tick does the
housekeeping: log batches out, durations enforced, reservations expired, the owner's
availability probed when due (availability.AvailabilityMonitor, every availability_check_s).
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import signal
import time
from typing import Any, Iterator

from .availability import AvailabilityMonitor
from .config import MB, Config
from .connection import Connection, Refused
from .isolation import IsolationError, docker_choose, isolation_choose
from .jobs import JobManager
from .outbox import Outbox
from .reach import ProbeListener

logger = logging.getLogger("splayd")

TICK = 0.1
DRAIN_TIMEOUT = 2.0
HANDLED_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StartupError(Exception):
    pass


class Server:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.should_exit = False
        self.force_exit = False
        self.exit_code = 0
        self.tasks: set[asyncio.Task[Any]] = set()
        self.outbox: Outbox | None = None
        self.jobs: JobManager | None = None
        self.connection: Connection | None = None
        self.availability: AvailabilityMonitor | None = None
        self.probe: ProbeListener | None = None
        self.started = asyncio.Event()

    def run(self) -> int:
        return asyncio.run(self.serve())

    async def serve(self) -> int:
        with self.capture_signals():
            try:
                await self.startup()
            except StartupError as e:
                logger.error("%s", e)
                return 2
            await self.main_loop()
            await self.shutdown()
        return self.exit_code

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        import threading

        if threading.current_thread() is not threading.main_thread():
            yield  # in-process tests: no signals
            return
        original = {sig: signal.signal(sig, self.handle_exit) for sig in HANDLED_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)

    def handle_exit(self, sig: int, frame: Any) -> None:
        if self.should_exit and sig == signal.SIGINT:
            self.force_exit = True
        self.should_exit = True

    def _track(self, coro: Any, name: str) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro, name=name)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def startup(self) -> None:
        cfg = self.config
        luajit = shutil.which(cfg.luajit)
        if luajit is None:
            raise StartupError(f"luajit: {cfg.luajit!r} not found (set `luajit` in the config)")
        try:
            cfg.work_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StartupError(f"work_dir: cannot create {cfg.work_dir}: {e.strerror}") from None
        try:
            if cfg.sandbox == "docker":
                isolation = await asyncio.to_thread(docker_choose, cfg.name, cfg.sandbox_dir, luajit)
            else:
                isolation = isolation_choose(cfg.sandbox, cfg.bwrap, cfg.sandbox_dir, luajit,
                                             cfg.work_dir / ".probe")
        except IsolationError as e:
            raise StartupError(str(e)) from None
        self.outbox = Outbox(journal_dir=cfg.work_dir / ".outbox", max_bytes=cfg.outbox_max_mb * MB)
        self.jobs = JobManager(cfg, self.outbox, luajit, isolation)
        self.availability = AvailabilityMonitor(cfg, self.jobs, self.outbox)
        self.availability.start()  # the first hello already tells the truth
        self.connection = Connection(cfg, self.jobs, self.outbox)
        # Before the first hello, which advertises its port (reach.py; docs/volunteer.md)
        self.probe = ProbeListener(cfg.name, cfg.probe_port)
        try:
            self.connection.probe_port = await self.probe.start()
        except OSError as e:
            raise StartupError(f"probe_port: cannot listen on {cfg.probe_port}: {e.strerror or e}") from None
        self._track(self._connect(), "connection")
        logger.info(
            "splayd %s: %d slots, ports %d-%d, work_dir %s, sandbox %s",
            cfg.name, cfg.max_instances, cfg.ports[0], cfg.ports[1], cfg.work_dir, isolation.backend,
        )
        self.started.set()

    async def _connect(self) -> None:
        assert self.connection is not None
        try:
            await self.connection.run()
        except Refused as e:
            logger.error("controller refused this daemon: %s", e)
            self.exit_code = 1
            self.should_exit = True

    async def main_loop(self) -> None:
        while not self.should_exit:
            await asyncio.sleep(TICK)
            self.on_tick()

    def on_tick(self) -> None:
        assert self.outbox is not None and self.jobs is not None
        now = time.monotonic()
        self.jobs.on_tick(now)
        if self.availability is not None:
            self.availability.on_tick(now)
        self.outbox.flush_logs()

    async def shutdown(self) -> None:
        assert self.outbox is not None and self.jobs is not None and self.connection is not None
        logger.info("shutting down")
        if self.availability is not None:
            await self.availability.stop()
        await self.jobs.kill_all("daemon shutting down")
        self.outbox.flush_logs()
        deadline = time.monotonic() + DRAIN_TIMEOUT
        while (
            self.connection.connected
            and self.outbox.pending()
            and not self.force_exit
            and time.monotonic() < deadline
        ):
            await asyncio.sleep(0.05)
        await self.connection.stop()
        if self.probe is not None:
            await self.probe.stop()
        if self.jobs.relay is not None:
            await self.jobs.relay.stop()
        tasks = set(self.tasks) | set(self.jobs.supervisor_tasks())
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=0 if self.force_exit else DRAIN_TIMEOUT)
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        logger.info("stopped")
