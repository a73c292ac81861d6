"""One node process: spawn under rlimits (inside bwrap when available), pump its output as
log records, watch its disk use, report its end.

An Instance moves RESERVED → RUNNING → ENDED | FAILED | KILLED. The process runs
`luajit <sandbox>/node.lua job.json app.lua` (wrapped by isolation.Isolation) in its own
session (its pid is its process group), with stdin /dev/null, no inherited descriptors and a
minimal environment. The end state and reason come from `exit_outcome` (exit codes of
docs/architecture.md) or from the daemon's own kill (duration, disk quota, file count);
every limit is named in the student's words ("killed: CPU time limit of 30 s exceeded").
With the Docker backend (`sandbox` given: the job's docker_backend.DockerJobSandbox) the
node is an exec in the job's container instead: its lines arrive through the same `_emit`,
its returncode goes through the same `exit_outcome`, and the daemon's kills go through
`kill_instance`; the disk watch and the log rate limit are the same (the working directory
is under the job directory the container bind-mounts).
The job's Limits, the rlimits and the exit's reading are limits.py's; the disk measure and the
process tree hostfs.py's (re-exported here). Output goes through the output limits of output_limits.py (the same rule as the local runner's
and the simulator's): at most `log_lines_per_second` lines per second per node, the rest of
the second's lines replaced by one "log rate limit: N lines dropped" record, and at most
`log_max_size` bytes per job (its nodes on this daemon share one JobBudget, held by the job's
Limits), then one "log budget: ..." record and nothing more; the node keeps running. `probe`
and `trace` records (bounded by the runtime) are neither counted nor dropped.
"""
from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from pathlib import Path
from typing import Any, Callable

from .hostfs import MAX_DEPTH, descendants, measure_dir, _comm
from .isolation import Isolation
from .killtree import kill_bwrap, kill_bwrap_now
from .limits import Limits, exit_outcome, fmt_seconds, rlimit_preexec
from .outbox import Outbox
from .spawn import NodeProcess, spawn
from .output_limits import NodeLimiter, fmt_size, line_cost
from .records import LineSplitter, parse_record

# Re-exported: the daemon's other modules and tests import these from here.
__all__ = ["Instance", "Limits", "exit_outcome", "fmt_seconds", "fmt_size", "measure_dir", "descendants",
           "rlimit_preexec", "GATE_FILE", "LEAVE_GRACE"]

logger = logging.getLogger("splayd")

READ_CHUNK = 65536
DRAIN_AFTER_EXIT = 2.0  # seconds to wait for the pipes to close once the process is gone
DISK_CHECK_INTERVAL = 0.5  # seconds between two measures of a working directory
LEAVE_GRACE = 2.0  # a graceful leave: SIGTERM, then SIGKILL this much later (as run_local)
GATE_FILE = "go"  # a held node's gate: a FIFO in its working directory (job.json "gate")


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
        isolation: Isolation | None = None,
        sandbox: Any = None,  # docker_backend.DockerJobSandbox (Docker backend)
    ) -> None:
        self.job = job
        self.node = node
        self.port = port
        self.workdir = workdir
        self.limits = limits
        self.outbox = outbox
        self.on_end = on_end
        self.isolation = isolation or Isolation("rlimits")
        self.state = "RESERVED"
        self.reason = ""
        self.exit_code: int | None = None
        self.seq = 0
        self.first_error: str | None = None
        self.proc: NodeProcess | None = None
        self.sandbox = sandbox
        self.exec: Any = None  # docker_backend.DockerExec
        self.started_at = 0.0  # time.monotonic()
        self.kill_reason: tuple[str, str] | None = None
        self.task: asyncio.Task[None] | None = None
        self.watch: asyncio.Task[None] | None = None
        self.killing: asyncio.Task[None] | None = None  # killtree.kill_bwrap under way
        self.done = asyncio.Event()
        self.output = NodeLimiter(limits.lines_per_second, limits.budget,
                                  lambda level, text, _limit, _n: self._send(level, text))
        # Churn jobs (timeline.Timeline): the join or leave to attach to the next report, the
        # scenario's clock (seconds since its t = 0), and whether the node joins again later
        # (then an end is reported LEFT: the slot stays for that join).
        self.churn_next: dict[str, Any] | None = None
        self.churn_clock: Callable[[], float] | None = None
        self.rejoins: Callable[[], bool] | None = None
        # A held node (a churn join started ahead of its instant) runs but waits at its gate,
        # and is not reported RUNNING, until release(); `gate` is the daemon's end of the FIFO,
        # open until the node ends (a FIFO's byte is lost if no end is open when it is read).
        self.gate: int | None = None
        self.held = False

    @property
    def running(self) -> bool:
        return self.state == "RUNNING"

    def _report(self) -> None:
        msg = {
            "type": "instance",
            "job": self.job,
            "node": self.node,
            "state": self.state,
            "exit_code": self.exit_code,
            "reason": self.reason,
        }
        if self.held and self.churn_next is not None and self.churn_next.get("event") == "join":
            self.churn_next = None  # ended before its gate opened: it never joined
        if self.churn_next is not None:
            churn, self.churn_next = self.churn_next, None
            if "t" not in churn and self.churn_clock is not None:
                churn["t"] = round(self.churn_clock(), 3)  # a join: the instant it runs
            msg["churn"] = churn
        self.outbox.instance(msg)

    async def start(self, argv: list[str], env: dict[str, str] | None, held: bool = False) -> None:
        if held:
            self._open_gate()
        if self.sandbox is not None:
            await self._start_docker(argv, env)
            return
        try:
            # forked and exec'd off the event loop (spawn.py): a START's launches overlap
            self.proc = await spawn(self.isolation.wrap(argv, self.workdir), self.workdir, env,
                                    rlimit_preexec(self.limits, no_fork=not self.isolation.is_bwrap))
        except (OSError, ValueError) as e:
            self.finish("FAILED", f"cannot start the node runtime: {e}")
            raise
        if self.done.is_set():  # freed or stopped while it was being spawned: already reported
            self._kill_proc()
            return
        self._running(self._supervise())

    async def _start_docker(self, argv: list[str], env: dict[str, str] | None) -> None:
        """The node as an exec in the job's container (argv and env are container-side)."""
        from .docker_backend import DockerSandboxError

        try:
            self.exec = await self.sandbox.start_instance(
                self.node, self._emit, workdir=self.workdir, argv=argv, env=env)
        except DockerSandboxError as e:
            self.finish("FAILED", f"cannot start the node runtime: {e}")
            raise
        if self.done.is_set():  # freed or stopped while its exec was starting
            self.sandbox.kill_instance(self.node)
            return
        self._running(self._supervise_docker())

    def _open_gate(self) -> None:
        """The FIFO the held runtime reads one byte from. Opened read-write here, so the
        runtime's open never blocks and a byte written before it reads is not lost."""
        path = self.workdir / GATE_FILE
        os.mkfifo(path, 0o644)  # readable by the Docker sandbox user too (the directory is chowned to it)
        self.gate = os.open(path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        self.held = True

    def _close_gate(self) -> None:
        if self.gate is not None:
            os.close(self.gate)
            self.gate = None

    def release(self) -> None:
        """Open a held node's gate: it loads and runs the app from now, reported RUNNING."""
        if not self.held or self.gate is None:
            return
        self.held = False
        os.write(self.gate, b"1")
        self.started_at = time.monotonic()
        self._report()

    def _running(self, supervise: Any) -> None:
        self.started_at = time.monotonic()
        self.state = "RUNNING"
        self.reason = "started"
        if not self.held:
            self._report()
        self.task = asyncio.create_task(supervise, name=f"job{self.job}-node{self.node}")
        if self.limits.disk_max_size is not None or self.limits.disk_max_files is not None:
            self.watch = asyncio.create_task(self._watch_disk(), name=f"job{self.job}-node{self.node}-disk")

    def finish(self, state: str, reason: str, exit_code: int | None = None) -> None:
        """Record the end state (once), report it, and let the owner release the slot."""
        if self.done.is_set():
            return
        if state in ("ENDED", "FAILED") and self.rejoins is not None and self.rejoins():
            state = "LEFT"  # down until the scenario's next join of this node
        self.state, self.reason, self.exit_code = state, reason, exit_code
        self._report()
        self._close_gate()
        self.done.set()
        if self.on_end:
            self.on_end(self)

    def kill(self, state: str, reason: str, graceful: bool = False, grace: float | None = None) -> None:
        """Kill the process group; the end is reported with (state, reason). `graceful`: SIGTERM
        to the node runtime first (its events.on_leave handlers run), SIGKILL `grace` seconds
        (default LEAVE_GRACE) later."""
        if self.state == "RESERVED":
            self.finish(state, reason)
            return
        if not self.running or self.kill_reason:
            return
        self.kill_reason = (state, reason)
        if graceful and self._terminate():
            asyncio.get_running_loop().call_later(LEAVE_GRACE if grace is None else grace, self._kill_now)
            return
        self._kill_now()

    def _kill_now(self) -> None:
        if self.done.is_set():
            return
        if self.exec is not None:
            self.sandbox.kill_instance(self.node)
            return
        self._kill_proc()

    def _kill_proc(self) -> None:
        """SIGKILL the node's process group; under bubblewrap, the sandbox too (killtree.py:
        a kill during bwrap's setup misses it otherwise)."""
        assert self.proc is not None
        if self.proc.returncode is not None:
            return
        if self.isolation.is_bwrap:
            if self.killing is None:
                self.killing = asyncio.create_task(kill_bwrap(self.proc), name=f"job{self.job}-node{self.node}-kill")
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def _terminate(self) -> bool:
        """SIGTERM to the LuaJIT process: under bubblewrap it is a descendant in a session and
        PID namespace of its own (killpg would reach bwrap, whose death kills the node), so the
        descendants that are not bwrap get it; in Docker the exec's host pid. False if none was
        reached."""
        if self.exec is not None:
            return bool(self.exec.send_signal(signal.SIGTERM))
        if self.proc is None:
            return False
        targets = [self.proc.pid]
        if self.isolation.is_bwrap:  # bwrap would die of it, and --die-with-parent kill the node
            targets = [p for p in descendants(self.proc.pid) if _comm(p) not in ("bwrap", "")]
        reached = False
        for pid in targets:
            try:
                os.kill(pid, signal.SIGTERM)
                reached = True
            except (ProcessLookupError, PermissionError):
                pass
        return reached

    def _send(self, level: str, text: str) -> None:
        self.seq += 1
        self.outbox.log_line(
            self.job,
            {"node": self.node, "seq": self.seq, "t": time.time(), "level": level, "text": text},
        )

    def _emit(self, line: bytes, truncated: bool, stream: str) -> None:
        level, text = parse_record(line, truncated, stream)
        if level == "error" and self.first_error is None and text.strip():
            self.first_error = text.strip()  # kept for the exit reason even if dropped below
        if self.output.admit(level, line_cost(len(line)), time.monotonic()):
            self._send(level, text)

    def report_dropped(self, now: float | None = None) -> None:
        """One record for the lines dropped by the rate limit (at the end of their window,
        or when the output ends); `now` given: only once the window is over."""
        if now is None:
            self.output.close()
        else:
            self.output.tick(now)

    async def _watch_disk(self) -> None:
        """Kill the node when its working directory holds too much or too many."""
        max_size, max_files = self.limits.disk_max_size, self.limits.disk_max_files
        while self.running and not self.kill_reason:
            await asyncio.sleep(DISK_CHECK_INTERVAL)
            if not self.running or self.kill_reason:
                return
            size, files, too_deep = await asyncio.to_thread(measure_dir, self.workdir, max_files)
            if max_files is not None and files > max_files:
                self.kill("FAILED", f"killed: more than {max_files} files")
            elif max_size is not None and size > max_size:
                self.kill("FAILED", f"killed: disk quota of {fmt_size(max_size)} exceeded")
            elif too_deep:
                self.kill("FAILED", f"killed: directories nested deeper than {MAX_DEPTH} levels")

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
            returncode = self.isolation.returncode(await proc.wait())
            wall = time.monotonic() - self.started_at
            # Output written just before the exit is still in the pipes: read it first.
            _, pending = await asyncio.wait(pumps, timeout=DRAIN_AFTER_EXIT)
            for p in pending:
                p.cancel()
            self.report_dropped()
        except asyncio.CancelledError:
            for p in pumps:
                p.cancel()
            if self.watch is not None:
                self.watch.cancel()
            if proc.returncode is None and self.isolation.is_bwrap:
                kill_bwrap_now(proc.pid)
            elif proc.returncode is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            raise
        self._ended(returncode, wall)

    async def _supervise_docker(self) -> None:
        ex = self.exec
        try:
            returncode = await ex.wait()  # once every line was delivered to _emit
            wall = time.monotonic() - self.started_at
            self.report_dropped()
        except asyncio.CancelledError:
            if self.watch is not None:
                self.watch.cancel()
            self.sandbox.kill_instance(self.node)
            raise
        self._ended(returncode, wall)

    def _ended(self, returncode: int, wall: float) -> None:
        if self.watch is not None:
            self.watch.cancel()
        if self.kill_reason:
            state, reason = self.kill_reason
        else:
            state, reason = exit_outcome(returncode, self.limits, self.first_error, wall)
        logger.info("job %s node %s: %s (%s)", self.job, self.node, state, reason)
        self.finish(state, reason, returncode)
