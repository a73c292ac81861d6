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
Output goes through the output limits of output_limits.py (the same rule as the local runner's
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
import resource
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .isolation import Isolation
from .outbox import Outbox
from .output_limits import JobBudget, NodeLimiter, fmt_size, line_cost
from .records import LineSplitter, parse_record

logger = logging.getLogger("splayd")

MB = 1024 * 1024
CPU_HARD_GRACE = 2  # seconds between SIGXCPU (soft limit) and SIGKILL (hard limit)
READ_CHUNK = 65536
DRAIN_AFTER_EXIT = 2.0  # seconds to wait for the pipes to close once the process is gone
DISK_CHECK_INTERVAL = 0.5  # seconds between two measures of a working directory
MAX_DEPTH = 100  # directory nesting the disk check follows
DAEMON_FILES = frozenset({"app.lua", "job.json", "go"})  # written by the daemon: not counted
LEAVE_GRACE = 2.0  # a graceful leave: SIGTERM, then SIGKILL this much later (as run_local)
GATE_FILE = "go"  # a held node's gate: a FIFO in its working directory (job.json "gate")


@dataclass(frozen=True)
class Limits:
    max_mem: int  # bytes (RLIMIT_AS)
    max_cpu: int  # seconds (RLIMIT_CPU soft)
    max_open_files: int
    max_file_size: int  # bytes
    duration: float | None  # wall seconds, enforced by the daemon's clock
    disk_max_size: int | None = None  # bytes in the working directory (periodic check)
    disk_max_files: int | None = None
    log_lines_per_second: int | None = None  # the owner's; runtime's "log_lines_per_second" (asked) wins
    runtime: dict[str, Any] = field(default_factory=dict)  # job.json "limits"
    nice: int = 0  # the node's niceness (config `nice`: the owner's CPU share)
    # The job's output budget (runtime's "log_max_size"), shared by every Instance made with
    # these Limits: a job's nodes on this daemon.
    budget: JobBudget = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "budget", JobBudget(self.runtime.get("log_max_size")))

    @property
    def lines_per_second(self) -> int | None:
        return self.runtime.get("log_lines_per_second", self.log_lines_per_second)

    @property
    def mem_mb(self) -> int:
        return self.max_mem // MB

    @property
    def file_size_is_quota(self) -> bool:
        """RLIMIT_FSIZE was lowered to the disk quota: a too big file is the quota's fault."""
        return self.disk_max_size is not None and self.max_file_size >= self.disk_max_size


def fmt_seconds(s: float) -> str:
    return f"{s:g}"


def measure_dir(root: Path, max_entries: int | None = None) -> tuple[int, int, bool]:
    """(bytes, entries, too_deep) under `root`, never following a symbolic link.

    Directories are opened with O_NOFOLLOW relative to their parent's descriptor, so a
    node swapping a directory for a link between two steps cannot send the walk outside.
    Every entry counts (files, directories, links) except the daemon's own files at the top;
    a regular file counts max(size, allocated blocks). Stops early past `max_entries`.
    """
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    total = entries = 0
    try:
        top = os.open(root, flags)
    except OSError:
        return 0, 0, False
    stack: list[tuple[int, int]] = [(top, 0)]  # (fd, depth)
    too_deep = False
    try:
        while stack:
            fd, depth = stack.pop()
            try:
                subdirs: list[str] = []
                with os.scandir(fd) as it:
                    for entry in it:
                        if depth == 0 and entry.name in DAEMON_FILES:
                            continue
                        entries += 1
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        if entry.is_dir(follow_symlinks=False):
                            subdirs.append(entry.name)
                        elif entry.is_file(follow_symlinks=False):
                            total += max(st.st_size, st.st_blocks * 512)
                        if max_entries is not None and entries > max_entries:
                            return total, entries, too_deep
                for name in subdirs:
                    if depth + 1 > MAX_DEPTH:
                        too_deep = True
                        continue
                    try:
                        stack.append((os.open(name, flags, dir_fd=fd), depth + 1))
                    except OSError:
                        continue
            finally:
                os.close(fd)
    finally:
        for fd, _ in stack:
            os.close(fd)
    return total, entries, too_deep


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid` (from /proc's parent links), children first."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])  # the field after the state
        children.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    todo = list(children.get(pid, []))
    while todo:
        p = todo.pop(0)
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def _set_rlimit(res: int, soft: int, hard: int) -> None:
    _, cur_hard = resource.getrlimit(res)
    if cur_hard != resource.RLIM_INFINITY:
        hard = min(hard, cur_hard)
    resource.setrlimit(res, (min(soft, hard), hard))


def rlimit_preexec(limits: Limits, no_fork: bool = True) -> Callable[[], None]:
    """The function run in the child between fork and exec. `no_fork=False` under bwrap,
    which must fork to set up its namespaces (its PID namespace holds any child)."""

    def apply() -> None:
        _set_rlimit(resource.RLIMIT_AS, limits.max_mem, limits.max_mem)
        _set_rlimit(resource.RLIMIT_CPU, limits.max_cpu, limits.max_cpu + CPU_HARD_GRACE)
        _set_rlimit(resource.RLIMIT_NOFILE, limits.max_open_files, limits.max_open_files)
        _set_rlimit(resource.RLIMIT_FSIZE, limits.max_file_size, limits.max_file_size)
        _set_rlimit(resource.RLIMIT_CORE, 0, 0)
        if limits.nice:
            # At least the owner's niceness (never lower than the daemon's own: that would
            # need privileges); under bwrap the node inherits it.
            current = os.getpriority(os.PRIO_PROCESS, 0)
            os.setpriority(os.PRIO_PROCESS, 0, max(current, limits.nice))
        if no_fork:
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
    memory = f"killed: memory limit of {fmt_size(limits.max_mem)} reached"
    if first_error and "not enough memory" in first_error and returncode in (1, 3, 4):
        return "FAILED", memory
    if returncode == 0:
        return "ENDED", "exited normally"
    if returncode == 1:
        return "FAILED", f"runtime error{detail}"
    if returncode == 2:
        return "FAILED", f"Lua syntax error{detail}"
    if returncode == 3:
        return "FAILED", f"runtime internal error{detail}"
    if returncode == 4:
        return "FAILED", memory
    if returncode < 0:
        sig = -returncode
        cpu = f"killed: CPU time limit of {fmt_seconds(limits.max_cpu)} s exceeded"
        if sig == signal.SIGXCPU:
            return "FAILED", cpu
        if sig == signal.SIGKILL and wall_seconds >= limits.max_cpu:
            # Not sent by the daemon (that case has a kill reason): the CPU hard limit.
            return "FAILED", cpu
        if sig == signal.SIGXFSZ:
            if limits.file_size_is_quota:
                assert limits.disk_max_size is not None
                return "FAILED", f"killed: disk quota of {fmt_size(limits.disk_max_size)} exceeded"
            return "FAILED", f"killed: file size limit of {fmt_size(limits.max_file_size)} exceeded"
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
        self.proc: asyncio.subprocess.Process | None = None
        self.sandbox = sandbox
        self.exec: Any = None  # docker_backend.DockerExec
        self.started_at = 0.0  # time.monotonic()
        self.kill_reason: tuple[str, str] | None = None
        self.task: asyncio.Task[None] | None = None
        self.watch: asyncio.Task[None] | None = None
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
            self.proc = await asyncio.create_subprocess_exec(
                *self.isolation.wrap(argv, self.workdir),
                cwd=self.workdir,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
                env=env,
                preexec_fn=rlimit_preexec(self.limits, no_fork=not self.isolation.is_bwrap),
            )
        except (OSError, ValueError) as e:
            self.finish("FAILED", f"cannot start the node runtime: {e}")
            raise
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
        assert self.proc is not None
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
            if proc.returncode is None:
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
