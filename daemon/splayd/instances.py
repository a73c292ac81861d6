"""One node process: spawn under rlimits, pump its output as log records, report its end.

An Instance moves RESERVED → RUNNING → ENDED | FAILED | KILLED. The process runs
`luajit <sandbox>/node.lua job.json app.lua` in its own session (its pid is its process
group), with stdin /dev/null, no inherited descriptors and a minimal environment.
The end state and reason come from `exit_outcome` (exit codes of docs/architecture.md).
"""
from __future__ import annotations

import asyncio
import logging
import os
import resource
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .outbox import Outbox
from .records import LineSplitter, parse_record

logger = logging.getLogger("splayd")

MB = 1024 * 1024
CPU_HARD_GRACE = 2  # seconds between SIGXCPU (soft limit) and SIGKILL (hard limit)
READ_CHUNK = 65536
DRAIN_AFTER_EXIT = 2.0  # seconds to wait for the pipes to close once the process is gone


@dataclass(frozen=True)
class Limits:
    max_mem: int  # bytes (RLIMIT_AS)
    max_cpu: int  # seconds (RLIMIT_CPU soft)
    max_open_files: int
    max_file_size: int  # bytes
    duration: float | None  # wall seconds, enforced by the daemon's clock

    @property
    def mem_mb(self) -> int:
        return self.max_mem // MB


def fmt_seconds(s: float) -> str:
    return f"{s:g}"


def _set_rlimit(res: int, soft: int, hard: int) -> None:
    _, cur_hard = resource.getrlimit(res)
    if cur_hard != resource.RLIM_INFINITY:
        hard = min(hard, cur_hard)
    resource.setrlimit(res, (min(soft, hard), hard))


def rlimit_preexec(limits: Limits) -> Callable[[], None]:
    """The function run in the child between fork and exec."""

    def apply() -> None:
        _set_rlimit(resource.RLIMIT_AS, limits.max_mem, limits.max_mem)
        _set_rlimit(resource.RLIMIT_CPU, limits.max_cpu, limits.max_cpu + CPU_HARD_GRACE)
        _set_rlimit(resource.RLIMIT_NOFILE, limits.max_open_files, limits.max_open_files)
        _set_rlimit(resource.RLIMIT_FSIZE, limits.max_file_size, limits.max_file_size)
        _set_rlimit(resource.RLIMIT_CORE, 0, 0)
        # A node never forks (not enforced for root, which has CAP_SYS_RESOURCE).
        _set_rlimit(resource.RLIMIT_NPROC, 0, 0)

    return apply


def exit_outcome(
    returncode: int,
    limits: Limits,
    first_error: str | None,
    wall_seconds: float,
) -> tuple[str, str]:
    """Map a node's exit to (state, reason); the reason names the limit that was hit."""
    detail = f": {first_error}" if first_error else ""
    if first_error and "not enough memory" in first_error and returncode in (1, 3, 4):
        return "FAILED", f"memory limit ({limits.mem_mb} MB) reached"
    if returncode == 0:
        return "ENDED", "exited normally"
    if returncode == 1:
        return "FAILED", f"runtime error{detail}"
    if returncode == 2:
        return "FAILED", f"Lua syntax error{detail}"
    if returncode == 3:
        return "FAILED", f"runtime internal error{detail}"
    if returncode == 4:
        return "FAILED", f"memory limit ({limits.mem_mb} MB) reached"
    if returncode < 0:
        sig = -returncode
        cpu = f"CPU time limit ({fmt_seconds(limits.max_cpu)} s) exceeded"
        if sig == signal.SIGXCPU:
            return "FAILED", cpu
        if sig == signal.SIGKILL and wall_seconds >= limits.max_cpu:
            # Not sent by the daemon (that case has a kill reason): the CPU hard limit.
            return "FAILED", cpu
        if sig == signal.SIGXFSZ:
            return "FAILED", f"file size limit ({limits.max_file_size // MB} MB) exceeded"
        try:
            name = f" ({signal.Signals(sig).name})"
        except ValueError:
            name = ""
        return "FAILED", f"killed by signal {sig}{name}"
    return "FAILED", f"exited with code {returncode}{detail}"


class Instance:
    def __init__(
        self,
        job: int,
        node: int,
        port: int,
        workdir: Path,
        limits: Limits,
        outbox: Outbox,
        on_end: Callable[["Instance"], None] | None = None,
    ) -> None:
        self.job = job
        self.node = node
        self.port = port
        self.workdir = workdir
        self.limits = limits
        self.outbox = outbox
        self.on_end = on_end
        self.state = "RESERVED"
        self.reason = ""
        self.exit_code: int | None = None
        self.seq = 0
        self.first_error: str | None = None
        self.proc: asyncio.subprocess.Process | None = None
        self.started_at = 0.0  # time.monotonic()
        self.kill_reason: tuple[str, str] | None = None
        self.task: asyncio.Task[None] | None = None
        self.done = asyncio.Event()

    @property
    def running(self) -> bool:
        return self.state == "RUNNING"

    def _report(self) -> None:
        self.outbox.instance(
            {
                "type": "instance",
                "job": self.job,
                "node": self.node,
                "state": self.state,
                "exit_code": self.exit_code,
                "reason": self.reason,
            }
        )

    async def start(self, argv: list[str], env: dict[str, str]) -> None:
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=self.workdir,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
                env=env,
                preexec_fn=rlimit_preexec(self.limits),
            )
        except (OSError, ValueError) as e:
            self.finish("FAILED", f"cannot start the node runtime: {e}")
            raise
        self.started_at = time.monotonic()
        self.state = "RUNNING"
        self.reason = "started"
        self._report()
        self.task = asyncio.create_task(self._supervise(), name=f"job{self.job}-node{self.node}")

    def finish(self, state: str, reason: str, exit_code: int | None = None) -> None:
        """Record the end state (once), report it, and let the owner release the slot."""
        if self.done.is_set():
            return
        self.state, self.reason, self.exit_code = state, reason, exit_code
        self._report()
        self.done.set()
        if self.on_end:
            self.on_end(self)

    def kill(self, state: str, reason: str) -> None:
        """Kill the process group; the end is reported with (state, reason)."""
        if self.state == "RESERVED":
            self.finish(state, reason)
            return
        if not self.running or self.kill_reason:
            return
        self.kill_reason = (state, reason)
        assert self.proc is not None
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def _emit(self, line: bytes, truncated: bool, stream: str) -> None:
        level, text = parse_record(line, truncated, stream)
        if level == "error" and self.first_error is None and text.strip():
            self.first_error = text.strip()
        self.seq += 1
        self.outbox.log_line(
            self.job,
            {"node": self.node, "seq": self.seq, "t": time.time(), "level": level, "text": text},
        )

    async def _pump(self, reader: asyncio.StreamReader, stream: str) -> None:
        splitter = LineSplitter()
        while True:
            data = await reader.read(READ_CHUNK)
            if not data:
                break
            for line, truncated in splitter.feed(data):
                self._emit(line, truncated, stream)
        for line, truncated in splitter.finish():
            self._emit(line, truncated, stream)

    async def _supervise(self) -> None:
        proc = self.proc
        assert proc is not None and proc.stdout is not None and proc.stderr is not None
        pumps = [
            asyncio.create_task(self._pump(proc.stdout, "stdout")),
            asyncio.create_task(self._pump(proc.stderr, "stderr")),
        ]
        try:
            returncode = await proc.wait()
            wall = time.monotonic() - self.started_at
            # Output written just before the exit is still in the pipes: read it first.
            _, pending = await asyncio.wait(pumps, timeout=DRAIN_AFTER_EXIT)
            for p in pending:
                p.cancel()
        except asyncio.CancelledError:
            for p in pumps:
                p.cancel()
            if proc.returncode is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            raise
        if self.kill_reason:
            state, reason = self.kill_reason
        else:
            state, reason = exit_outcome(returncode, self.limits, self.first_error, wall)
        logger.info("job %s node %s: %s (%s)", self.job, self.node, state, reason)
        self.finish(state, reason, returncode)
