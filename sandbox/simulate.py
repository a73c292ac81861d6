"""Run a job in simulation: every node in one LuaJIT process on a virtual clock (sandbox/sim.lua,
docs/simulation.md). Used by `./splaylab run --sim` (run_local.py) and by the controller's
simulation task (backend/jobs/simulation.py). Standard library only.

    result = simulate(SimJob(app=..., nodes=N, time=S, seed=K, ...), on_record, on_progress)

on_record(position, t, level, text) gets every node record (t: virtual seconds; level: a node
output level, or "exit" / "churn" / "limit" / "fatal" as sim.lua documents; the output limits
of the daemon apply, on virtual time: SimJob.output, docs/architecture.md "Output limits"); on_progress(Progress) about
once a second of wall time. The process runs with rlimits (address space, CPU, file size) and a
wall-clock limit; under bubblewrap when present: no network, read-only system, its own
directory only.

Reproducibility: LuaJIT orders `pairs` by addresses and by a string hash seeded per process
from getrandom. Here the process runs with address randomization off (setarch -R) and, under
bubblewrap, a seccomp filter that answers ENOSYS to getrandom plus a fixed file over
/dev/urandom, so that the same inputs give byte-identical records. Without bubblewrap
`SimResult.reproducible` is False and reruns may order `pairs` differently.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import platform
import random
import resource
import selectors
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

SANDBOX = Path(__file__).resolve().parent
if str(SANDBOX) not in sys.path:  # node_address.py sits beside this file
    sys.path.append(str(SANDBOX))
from node_address import node_ip  # noqa: E402
from sim_watch import EXIT_SPIN, Progress, ProgressFile, SpinWatch  # noqa: E402,F401 (Progress: callers' type)

SIM_LUA = SANDBOX / "sim.lua"
DAEMON_DIR = SANDBOX.parent / "daemon"
PIPE_BYTES = 1 << 20   # the records pipe (_widen_pipe)
TRANSPORTS = ("fast", "sockets")   # SimJob.transport: docs/simulation.md "The message fast path"
EXIT_TEXT = {1: "a node failed", 2: "bad input", 3: "simulator internal error", 4: "out of memory",
             5: "a node computed without end"}

# seccomp: getrandom -> ENOSYS (LuaJIT then reads /dev/urandom, which is a fixed file here).
_AUDIT_ARCH = {"x86_64": (0xC000003E, 318), "aarch64": (0xC00000B7, 278)}
_SECCOMP_RET_ALLOW, _SECCOMP_RET_ERRNO, _ENOSYS = 0x7FFF0000, 0x00050000, 38


def seccomp_no_getrandom() -> bytes | None:
    """A classic-BPF seccomp program (bwrap --seccomp) refusing getrandom; None on other machines."""
    arch = _AUDIT_ARCH.get(platform.machine())
    if arch is None:
        return None
    audit_arch, nr = arch

    def ins(code: int, jt: int, jf: int, k: int) -> bytes:
        return struct.pack("<HBBI", code, jt, jf, k)
    ld_abs, jeq, ret = 0x20, 0x15, 0x06
    return b"".join([
        ins(ld_abs, 0, 0, 4),                 # seccomp_data.arch
        ins(jeq, 0, 3, audit_arch),           # another ABI: allow
        ins(ld_abs, 0, 0, 0),                 # seccomp_data.nr
        ins(jeq, 0, 1, nr),
        ins(ret, 0, 0, _SECCOMP_RET_ERRNO | _ENOSYS),
        ins(ret, 0, 0, _SECCOMP_RET_ALLOW),
    ])


@dataclass
class SimJob:
    app: Path
    nodes: int
    time: float
    seed: int = 1
    net_blocks: list[Any] | None = None     # per node, sandbox/netmodel.py compile_job
    churn: list[tuple[float, int, str, bool]] | None = None   # (t, position, join|leave, graceful)
    until: float | None = None              # end earlier than time (a scenario's stop)
    stop_reason: str | None = None
    limits: dict[str, Any] | None = None
    list_type: str = "head"                 # job.nodes, as the descriptor's list_type/list_size
    list_size: int = 0                      # say (0: every node)
    spin_limit: float = 10.0                # CPU s one node may compute without waiting
    max_mem: int = 4 * 1024 ** 3            # address space of the whole simulation
    max_cpu: int = 3600                     # CPU seconds of the whole simulation
    max_wall: float = 3600.0
    job_id: int = 0
    harness: Path | None = None             # an assignment's harness (docs/grading.md)
    trace: Any = None                       # the trace block ({max_events}); False: off (benchmarks)
    output: Any = None                      # splayd.output_limits.OutputLimits (None: the defaults)
    transport: str = "fast"                 # rpc/urpc messages: "fast" (copies) | "sockets" (encoded, as live)
    gc_budget_mb: int = 128                 # garbage the collector lets pile up (splaylab.sim.collector)


@dataclass
class SimResult:
    code: int                 # sim.lua's exit status (or -signal)
    reproducible: bool        # ran with fixed addresses and hash seed
    wall_s: float = 0.0
    final: Progress | None = None
    failure: str | None = None   # why the whole run stopped, when it did
    stderr: list[str] = field(default_factory=list)


def run_plan(plan: Any, duration: float | int) -> tuple[list[tuple[float, int, str, bool]] | None, float, str]:
    """SimJob's churn, until and stop_reason for a run of `duration` s with a churn plan
    (sandbox/churn.py Schedule, or None): a scenario's stop before the duration ends it. The
    reason writes the duration as given (the live runner's words: "10.0 s" from the CLI)."""
    until, stop_reason = float(duration), f"stopped: duration of {duration} s reached"
    if plan is None:
        return None, until, stop_reason
    churn = [(e.t, e.node, e.kind, bool(e.graceful)) for e in plan.events if e.kind in ("join", "leave")]
    if plan.end is not None and plan.end < duration:
        until, stop_reason = plan.end, f"stopped: the scenario's stop at {plan.end:g} s"
    return churn, until, stop_reason


def _daemon_importable() -> None:
    if str(DAEMON_DIR) not in sys.path:
        sys.path.insert(0, str(DAEMON_DIR))


def output_limits(given: Any = None, lines_per_second: int | None = None, max_size: int | None = None) -> Any:
    """The job's output limits (daemon/splayd/output_limits.py: the daemon's, one definition):
    `given`, else the defaults, lowered by what a descriptor asks (lines_per_second, max_size;
    a ValueError in the daemon's words when it asks more)."""
    _daemon_importable()
    from splayd.output_limits import OutputLimits, within
    return within(given if given is not None else OutputLimits(), lines_per_second, max_size, "the simulator")


def bootstrap_list(nodes: list[Any], list_type: str, list_size: int, seed: int, position: int) -> list[Any]:
    """job.nodes of the node at `position`, as a daemon gives it (splayd.jobs.bootstrap_nodes, the
    one reading of list_type/list_size), a random list drawn from the seed and the position: a
    local live run and its simulation list the same nodes."""
    _daemon_importable()
    from splayd.jobspec import bootstrap_nodes
    return bootstrap_nodes(nodes, list_type, list_size, random.Random(seed * 1000003 + position))


def _bootstrap_positions(job: "SimJob", nodes: list[dict[str, Any]]) -> list[list[int]] | None:
    """sim.json's "bootstrap": each node's job.nodes as positions; None when every node lists all."""
    if job.list_size <= 0 or job.list_size >= len(nodes):
        return None
    position_of = {id(n): k for k, n in enumerate(nodes, 1)}
    return [[position_of[id(n)] for n in bootstrap_list(nodes, job.list_type, job.list_size, job.seed, k)]
            for k in range(1, len(nodes) + 1)]


FIRST_PORT = 20000
LOOPBACK_NODES = 65535 - FIRST_PORT + 1   # nodes one host's ports can number (45,536)


def node_addresses(n: int) -> list[dict[str, Any]]:
    """The simulated nodes' addresses, the same for every run of N nodes: as a local live run's
    (a loopback address and a port each, node_address.py) up to what one host's ports allow;
    a larger population is a deployment over as many hosts, node i (from 0) on 10.a.b.c = 10.0.0.1
    + i, port 20000 (docs/simulation.md, "Limits")."""
    if n > LOOPBACK_NODES:
        return [{"ip": f"10.{(i + 1) >> 16 & 255}.{(i + 1) >> 8 & 255}.{(i + 1) & 255}", "port": FIRST_PORT}
                for i in range(n)]
    return [{"ip": node_ip("127.0.0.1", FIRST_PORT + i), "port": FIRST_PORT + i} for i in range(n)]


def _argv(luajit: str, spec_path: Path, workdir: Path, seed_file: Path, seccomp_fd: int | None) -> tuple[list[str], bool]:
    argv = [luajit, str(SIM_LUA), str(spec_path)]
    bwrap = shutil.which("bwrap")
    reproducible = False
    if bwrap and seccomp_fd is not None:
        _daemon_importable()
        from splayd.isolation import bwrap_argv  # the daemon's own sandbox, one definition
        wrap = bwrap_argv(bwrap, SANDBOX, luajit, workdir)[:-1]   # without its "--"
        # --unshare-user: without it, root's exec into the capability-less sandbox clears the
        # "no address randomization" personality flag (setarch -R) on the way.
        wrap += ["--unshare-user", "--unshare-net", "--ro-bind", str(seed_file), "/dev/urandom",
                 "--seccomp", str(seccomp_fd), "--"]
        argv = wrap + argv
        reproducible = True
    setarch = shutil.which("setarch")
    if setarch:
        argv = [setarch, platform.machine(), "-R"] + argv
    else:
        reproducible = False
    return argv, reproducible


def _widen_pipe(stream: Any) -> None:
    """The records' pipe at 1 MB (Linux's default bound for a pipe, not 64 KB): sim.lua writes
    its records in flushes of up to a megabyte, and with a 64 KB pipe it waited for this process
    to read and parse each one before it could run on (a chord grade: ~0.2 s of its ~1.4 s). A
    system that refuses keeps the pipe as it is."""
    try:
        fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (AttributeError, OSError):
        pass


def simulate(job: SimJob, on_record: Callable[[int, float, str, str], None],
             on_progress: Callable[[Progress], None] | None = None,
             workdir: Path | None = None, keep: bool = False,
             cancel: Callable[[], bool] | None = None) -> SimResult:
    """Run the job; cancel(), asked about once a second, stops the simulator when it says True."""
    if job.transport not in TRANSPORTS:
        raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, not {job.transport!r}")
    luajit = shutil.which("luajit")
    if not luajit:
        raise RuntimeError("luajit not found (apt-get install luajit)")
    root = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="splaylab-sim-"))
    root.mkdir(parents=True, exist_ok=True)
    nodes_dir = root / "nodes"
    nodes_dir.mkdir(exist_ok=True)
    addresses = node_addresses(job.nodes)
    spec = {
        "app": str(root / "app.lua"), "workdir": str(nodes_dir), "time": job.time, "seed": job.seed,
        "nodes": addresses, "net": job.net_blocks, "churn": job.churn,
        "until": job.until if job.until is not None else job.time, "stop_reason": job.stop_reason,
        "limits": job.limits, "spin_limit": job.spin_limit, "job_id": job.job_id,
        "list_type": job.list_type, "bootstrap": _bootstrap_positions(job, addresses),
        "trace": job.trace, "harness": str(root / "harness.lua") if job.harness else None,
        "output": output_limits(job.output).sim_block(), "transport": job.transport, "gc_budget_mb": job.gc_budget_mb,
        "progress": str(root / "progress"),   # sim.lua and sim_watch.py share it
    }
    shutil.copyfile(job.app, root / "app.lua")
    if job.harness:
        shutil.copyfile(job.harness, root / "harness.lua")
    (root / "progress").write_bytes(bytes(ProgressFile.CELLS.size))
    spec_path = root / "sim.json"
    spec_path.write_text(json.dumps(spec))
    seed_file = root / "urandom"
    seed_file.write_bytes(hashlib.sha256(b"splaylab-sim").digest() * 128)
    bpf = seccomp_no_getrandom()
    seccomp_file = None
    if bpf is not None:
        seccomp_file = tempfile.TemporaryFile()
        seccomp_file.write(bpf)
        seccomp_file.seek(0)
    argv, reproducible = _argv(luajit, spec_path, root, seed_file,
                               seccomp_file.fileno() if seccomp_file else None)

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (job.max_mem, job.max_mem))
        resource.setrlimit(resource.RLIMIT_CPU, (job.max_cpu, job.max_cpu + 2))
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024 * 1024,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    result = SimResult(code=0, reproducible=reproducible)
    started = time.monotonic()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": "/nonexistent"}
    proc = subprocess.Popen(argv, cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, preexec_fn=limits,
                            pass_fds=(seccomp_file.fileno(),) if seccomp_file else ())
    if seccomp_file:
        seccomp_file.close()
    _widen_pipe(proc.stdout)
    sel = selectors.DefaultSelector()
    assert proc.stdout and proc.stderr
    sel.register(proc.stdout, selectors.EVENT_READ, "out")
    sel.register(proc.stderr, selectors.EVENT_READ, "err")
    bufs = {"out": b"", "err": b""}
    open_streams = 2
    last_cancel_check = started
    killed_spinning = False
    done_seen = False
    progress = ProgressFile(root / "progress", started)
    watch = SpinWatch(progress, proc.pid, job.spin_limit)

    def on_line(kind: str, line: bytes) -> None:
        text = line.decode("utf-8", "backslashreplace")  # a byte that is not UTF-8 reads \xNN, as live
        if kind == "out":
            parts = text.split("\t", 3)
            if len(parts) == 4:
                k, t, level, rest = parts
                if level == "fatal":
                    result.failure = rest
                on_record(int(k), float(t), level, rest)
            return
        words = text.split()
        if len(words) == 5 and words[0] == "done":   # the rate is timed here: sim.lua keeps clocks out of the run
            nonlocal done_seen
            done_seen = True
            events = int(float(words[2]))
            result.final = Progress(float(words[1]), events, events / max(time.monotonic() - started, 1e-6),
                                    int(float(words[3])), int(words[4]))
        elif text.strip():
            result.stderr.append(text)

    try:
        while open_streams:
            if time.monotonic() - started > job.max_wall:
                proc.kill()
                result.failure = f"simulation stopped: wall-clock limit of {job.max_wall:g} s reached"
                break
            if cancel is not None and time.monotonic() - last_cancel_check >= 1.0:
                last_cancel_check = time.monotonic()
                if cancel():
                    proc.kill()
                    result.failure = "simulation stopped on request"
                    break
            p = progress.poll()
            if p is not None and not done_seen:   # sim.lua's last word (with its peak) stays
                result.final = p
                if on_progress:
                    on_progress(p)
            if not killed_spinning and watch.check():
                # a node computed too long and sim.lua did not answer the signal: kill it, read
                # what it had written, then its fatal record (below)
                watch.kill()
                proc.kill()
                killed_spinning = True
            for key, _ in sel.select(timeout=min(progress.timeout(), watch.timeout())):
                chunk = os.read(key.fd, 65536)
                kind = key.data
                if not chunk:
                    sel.unregister(key.fileobj)
                    open_streams -= 1
                    if bufs[kind]:
                        on_line(kind, bufs[kind])
                    continue
                *lines, bufs[kind] = (bufs[kind] + chunk).split(b"\n")
                for line in lines:
                    on_line(kind, line)
        code = proc.wait()
        if killed_spinning:
            k, vt, text = watch.record()
            result.failure = text
            on_record(k, vt, "fatal", text)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sel.close()
        progress.close()
        if not keep and workdir is None:
            shutil.rmtree(root, ignore_errors=True)
    result.code = EXIT_SPIN if killed_spinning else code
    result.wall_s = time.monotonic() - started
    if result.failure is None and code not in (0, 1):
        if code in (-9, -24):   # SIGKILL / SIGXCPU: the CPU limit
            result.failure = f"simulation stopped: CPU limit of {job.max_cpu} s reached"
        else:
            tail = result.stderr[-1] if result.stderr else ""
            result.failure = f"simulation failed ({EXIT_TEXT.get(code, f'exit {code}')}){': ' + tail if tail else ''}"
    return result
