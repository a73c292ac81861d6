"""Starting a job's nodes (mixed into jobs.JobManager): START answers at once with the nodes it
accepts, and `_launch`, a task of the job's own, spawns them LAUNCH_CONCURRENCY at a time, each
reported RUNNING, or FAILED with why, by its `instance` frame. So no reply waits for N process
launches (the controller's deadline for a reply does not grow with the job). A `stop` or `free`
arriving meanwhile sets `job.stopping` and waits for the spawns under way, no more.
Docker backend: the job's container is opened before its first node (`_open_sandbox`) and
removed when the job is freed or stopped (`_close_sandbox`)."""
from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from .config import MB
from .docker_backend import DockerJobSandbox, DockerSandboxError
from .instances import Instance
from .isolation import TMP_SIZE
from .job import Job
from .jobspec import CommandError

logger = logging.getLogger("splayd")

# Processes being spawned at once by a START: spawning is mostly the daemon's fork and the
# child's exec, so a few at a time keep the event loop (heartbeats, logs) responsive.
LAUNCH_CONCURRENCY = 4

Reply = dict[str, Any]


class Launcher:
    # provided by jobs.JobManager
    jobs: dict[int, Job]
    isolation: Any
    config: Any
    luajit: str
    closing: set[asyncio.Task[None]]

    async def cmd_start(self, cmd: dict[str, Any]) -> Reply:
        """Answer at once with the nodes it accepts; `_launch` starts them (each reported
        RUNNING or FAILED by its instance frame)."""
        self._check_available()  # type: ignore[attr-defined]
        job = self._job(cmd)  # type: ignore[attr-defined]
        if job.code is None:
            raise CommandError(f"job {job.id} was not listed before start")
        if job.timeline is not None:
            return await self._start_timeline(job, cmd)  # type: ignore[attr-defined]
        if job.launch is not None and not job.launch.done():
            return {"ok": True, "accepted": []}  # a START resent while the first one launches
        if job.net_epoch is None:
            job.net_epoch = time.time()
        todo = [(n, p) for n, p in sorted(job.listed.items()) if n not in job.instances]
        if todo:
            job.launch = asyncio.create_task(self._launch(job, todo), name=f"job{job.id}-launch")
        return {"ok": True, "accepted": [n for n, _ in todo]}

    async def _launch(self, job: Job, todo: list[tuple[int, int]]) -> None:
        """Start the listed nodes, LAUNCH_CONCURRENCY at a time, until the job is stopped or
        freed (a node whose slot was freed meanwhile is not started)."""
        unavailable = await self._open_sandbox(job) if self.isolation.is_docker else None
        gate = asyncio.Semaphore(LAUNCH_CONCURRENCY)

        async def one(node: int, port: int) -> None:
            async with gate:
                if job.stopping or self.jobs.get(job.id) is not job or port not in job.ports:
                    return
                inst = self._prepare(job, node, port)  # type: ignore[attr-defined]
                if unavailable:
                    inst.finish("FAILED", f"cannot start the node runtime: {unavailable}")
                    return
                try:
                    await self._spawn(job, inst)
                except (OSError, ValueError, DockerSandboxError) as e:  # reported FAILED by Instance.start
                    logger.warning("job %s node %s: cannot start: %s", job.id, node, e)

        started = time.monotonic()
        await asyncio.gather(*(one(n, p) for n, p in todo))
        logger.info("job %s: %d node(s) launched in %.2f s", job.id, len(todo), time.monotonic() - started)

    async def launched(self, job_id: int) -> None:
        """Wait until the job's launch (START) is over (tests, `stop`)."""
        job = self.jobs.get(job_id)
        if job is not None and job.launch is not None:
            await asyncio.wait([job.launch])

    async def _spawn(self, job: Job, inst: Instance, held: bool = False) -> None:
        await inst.start(self._argv(), None if job.sandbox else self._env(inst.workdir), held=held)  # type: ignore[attr-defined]

    # helpers
    async def _open_sandbox(self, job: Job) -> str | None:
        """Docker backend: open the job's container (once); None, or why it cannot run."""
        if job.sandbox is not None:
            return None
        jdir = self.job_dir(job.id)  # type: ignore[attr-defined]
        jdir.mkdir(parents=True, exist_ok=True)
        count = max(len(job.listed), len(job.ports), 1)
        try:
            sandbox = await asyncio.to_thread(
                DockerJobSandbox, daemon_name=self.config.name, job=job.id, job_dir=jdir,
                sandbox_dir=self.config.sandbox_dir, limits=job.limits, instances=count,
                image=self.isolation.image, luajit=self.luajit,
                # the same private /tmp budget per instance as bubblewrap's (one tmpfs per job)
                tmp_mb=count * max(1, TMP_SIZE // MB))
            job.sandbox = sandbox
            await sandbox.open()
        except Exception as e:  # DockerSandboxError, ImageError, DockerException
            logger.error("job %s: cannot open its sandbox container: %s", job.id, e)
            if job.sandbox is not None:
                self._close_sandbox(job)
            return str(e) or type(e).__name__
        logger.info("job %s: container %s for %d instance(s)", job.id, sandbox.name, count)
        return None

    def _close_sandbox(self, job: Job) -> None:
        sandbox, job.sandbox = job.sandbox, None
        if sandbox is None:
            return
        task = asyncio.create_task(sandbox.close(), name=f"job{job.id}-close")
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)

    async def wait_closed(self) -> None:
        """Wait for the containers being removed (shutdown)."""
        if self.closing:
            await asyncio.gather(*list(self.closing), return_exceptions=True)
