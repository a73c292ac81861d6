#!/usr/bin/env python3
"""Run a SPLAY application on N local nodes, without the service (SPLAY's "run locally").

    python sandbox/run_local.py APP.lua --nodes N --time S [--seed K] [--out FILE.jsonl]
                                [--backend process|docker]
    (also `./splaylab run ...`)

Each node is `luajit sandbox/node.lua job.json app.lua` in its own temporary working directory,
in its own session, with rlimits (address space, CPU, open files, file size, no core), stdin
/dev/null and a minimal environment, as splayd does. Ports come from a free range on
127.0.0.1; job.nodes lists all N nodes, job.position = k. The merged log is printed live as
`node  k HH:MM:SS.mmm level text`; --out gets one JSON object per line (schema in
sandbox/README.md). Exit status: 0 when every node ended normally or the time ran out, 1 when a
node failed (non-zero exit), 2 on bad usage or when the backend cannot run here. Standard
library only for the default backend.

Output goes through the daemon's output limits (daemon/splayd/output_limits.py, the same in
--sim on virtual time): at most --log-lines-per-second lines per node per second, the rest
replaced by one "log rate limit: N lines dropped" record, and --log-max-size bytes for the run,
then one "log budget: ..." record and nothing more (the nodes run on); the app's descriptor may
ask less (log_lines_per_second, log_max_size), more exits 2.

`--churn FILE` (a churn script or trace, docs/churn.md; process backend) starts no node at
launch: node k starts at each of its joins (a fresh process and working directory each time,
same position and port) and is killed at its leaves (SIGKILL: a failure; a graceful leave
sends SIGTERM, which runs the app's events.on_leave handlers, then SIGKILL after GRACE_S if
the node has not ended by then). Each join and leave writes a `churn` record with
its planned and actual times; the script's network statements join the `net` block.

`--backend docker` runs the same nodes as execs in one hardened container (splayd's own Docker
backend, daemon/splayd/docker_backend.py: read-only root, no capabilities, no-new-privileges,
pids and memory limits, host networking, the sandbox image built from host files when absent
by docker_image.py). The node directories are bind-mounted at /work; the rlimits are the same.
The Docker SDK is imported only then (from the repository's daemon/ folder and the running
Python's packages); without it, or without an engine that answers, the runner says so and
exits 2. Same console output, same JSONL, same exit status.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

SANDBOX = Path(__file__).resolve().parent
NODE_LUA = SANDBOX / "node.lua"

if str(SANDBOX) not in sys.path:
    sys.path.insert(0, str(SANDBOX))
from run_records import LEVELS, GRACE_S, Output, report_exit, report_graceful_leave  # noqa: E402
from splayd.output_limits import LimitError, OutputLimits, parse_size, within  # noqa: E402  (run_records: daemon/ on the path)
from run_setup import free_port_base, job_spec  # noqa: E402,F401  (free_port_base: tests import it here)


def rlimit_preexec(max_mem: int, max_cpu: int, max_files: int, max_fsize: int) -> Callable[[], None]:
    def apply() -> None:
        for res, value in ((resource.RLIMIT_AS, max_mem), (resource.RLIMIT_NOFILE, max_files),
                           (resource.RLIMIT_FSIZE, max_fsize), (resource.RLIMIT_CORE, 0)):
            _, hard = resource.getrlimit(res)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(res, (value, value))
        resource.setrlimit(resource.RLIMIT_CPU, (max_cpu, max_cpu + 2))
    return apply


class Node:
    def __init__(self, k: int, proc: subprocess.Popen[bytes], workdir: Path) -> None:
        self.k, self.proc, self.workdir = k, proc, workdir
        self.code: int | None = None
        self.left: str | None = None  # killed by the churn scenario: "failure" or "graceful"
        self.kill_at: float | None = None  # a graceful leave's SIGKILL deadline


def bootstrap_list(args: argparse.Namespace) -> str | None:
    """The app's descriptor's list_type/list_size into args (job.nodes is that list, as on the
    service). A descriptor the service would refuse (e.g. nb_splayds beyond its live limit,
    which a simulation may exceed) is not an error here: a warning, and every node listed."""
    args.list_type, args.list_size = "head", 0
    args.asked_log_rate = args.asked_log_size = None
    if str(SANDBOX.parent / "backend") not in sys.path:
        sys.path.insert(0, str(SANDBOX.parent / "backend"))
    from lib.descriptor import DescriptorError, descriptor_parse  # backend/lib: no Django
    try:
        d = descriptor_parse(Path(args.app).read_text(errors="replace"), Path(args.app).name)
    except DescriptorError as e:
        print(f"run_local: warning: descriptor not used ({e}): job.nodes lists every node", file=sys.stderr)
        return None
    except OSError:
        return None   # run() names the missing file
    if d:
        args.list_type, args.list_size = d.list_type, d.list_size
        args.asked_log_rate, args.asked_log_size = d.get("log_lines_per_second"), d.get("log_max_size")
    return None


def output_limits(args: argparse.Namespace) -> str | None:
    """The run's output limits into args.output_limits: the daemon's defaults, or
    --log-lines-per-second / --log-max-size (this machine's owner), lowered by what the app's
    descriptor asks; an error message or None."""
    try:
        ceiling = OutputLimits(args.log_lines_per_second, parse_size(args.log_max_size))
        args.output_limits = within(ceiling, getattr(args, "asked_log_rate", None),
                                    getattr(args, "asked_log_size", None), "this run (--log-lines-per-second, "
                                    "--log-max-size)")
    except LimitError as e:
        return str(e)
    return None


def network_blocks(args: argparse.Namespace) -> str | None:
    """Compile --net/--loss/--bandwidth/--partition into args.net_blocks; an error message or None."""
    if str(SANDBOX) not in sys.path:
        sys.path.insert(0, str(SANDBOX))
    import netmodel  # sandbox/netmodel.py, beside this file
    try:
        spec = netmodel.parse_net(args.net, loss=args.loss, bandwidth=args.bandwidth,
                                  partitions=args.partition or [], asymmetric=args.asymmetric, mtu=args.mtu)
    except netmodel.NetModelError as e:
        return str(e)
    args.net_blocks = netmodel.compile_job(spec, args.nodes, args.seed or 0, duration=args.time)
    plan = getattr(args, "churn_plan", None)
    if plan is not None and any(e.kind not in ("join", "leave") for e in plan.events):
        import churn
        args.net_blocks = netmodel.with_overlay(args.net_blocks, churn.network_overlay(plan, args.nodes, args.seed or 1),
                                                args.nodes, args.mtu)
    args.net_epoch = time.time()   # partition offsets count from the launch
    return None


def churn_plan(args: argparse.Namespace) -> str | None:
    """Load --churn into args.churn_plan (and the node count); an error message or None."""
    if str(SANDBOX) not in sys.path:
        sys.path.insert(0, str(SANDBOX))
    import churn  # sandbox/churn.py
    try:
        text = Path(args.churn).read_text()
    except OSError as e:
        return f"cannot read {args.churn}: {e.strerror}"
    errors = churn.script_errors(text) if churn.load_kind(text) == "script" else []
    try:
        if errors:
            raise errors[0]
        plan = churn.load(text, seed=args.seed if args.seed is not None else 1)
    except churn.ChurnError as e:
        return "\n".join(f"{args.churn}:{x.line}:{x.column}: {x.message}" for x in (errors or [e]))
    if plan.nodes == 0:
        return f"{args.churn}: the scenario never starts a node"
    if args.nodes is not None and args.nodes != plan.nodes:
        return f"{args.churn} uses {plan.nodes} nodes: leave out --nodes, or give --nodes {plan.nodes}"
    args.nodes = plan.nodes
    args.churn_plan = plan
    return None


def run_sim(args: argparse.Namespace) -> int:
    """--sim: every node in one LuaJIT process on a virtual clock (sandbox/simulate.py); the same
    console lines (stamped with virtual seconds) and JSONL records (t: virtual seconds)."""
    if str(SANDBOX) not in sys.path:
        sys.path.insert(0, str(SANDBOX))
    import simulate  # sandbox/simulate.py
    app = Path(args.app)
    if not app.is_file():
        print(f"run_local: no such file: {app}", file=sys.stderr)
        return 2
    churn, until, stop_reason = simulate.run_plan(getattr(args, "churn_plan", None), args.time)
    seed = args.seed if args.seed is not None else 1
    out_file = open(args.out, "w", encoding="utf-8") if args.out else None
    output = Output(out_file, 0.0, args.quiet)
    tty = sys.stderr.isatty()

    def on_record(k: int, t: float, level: str, text: str) -> None:
        output.virtual = t
        if level == "exit":
            code, _, reason = text.partition("\t")
            output.exit(k, int(code), reason)
        elif level == "churn":
            parts = text.split("\t")
            output.churn(k, parts[0], float(parts[1]), len(parts) > 2)
        elif level == "limit":   # sim.lua's output limits: KIND<TAB>N<TAB>TEXT
            limit, dropped, words = text.split("\t", 2)
            output.limit(k, "warning", words, limit, int(dropped))
        elif level == "fatal":
            output.record(k, "error", text)
        else:
            output.record(k, level if level in LEVELS else "error", text)

    def on_progress(p: Any) -> None:
        if not args.quiet:
            line = (f"sim: virtual {p.virtual_t:,.1f} s of {until:g} s, {p.events:,} events, "
                    f"{p.events_per_s:,.0f} events/s, {p.nodes_started:,} nodes started")
            sys.stderr.write(("\r" + line + "\x1b[K") if tty else line + "\n")
            sys.stderr.flush()

    job = simulate.SimJob(app=app, nodes=args.nodes, time=args.time, seed=seed,
                          net_blocks=getattr(args, "net_blocks", None), churn=churn, until=until,
                          stop_reason=stop_reason, max_mem=args.sim_max_mem, spin_limit=args.spin_limit,
                          list_type=getattr(args, "list_type", "head"), list_size=getattr(args, "list_size", 0),
                          harness=Path(args.harness) if args.harness else None, output=args.output_limits,
                          trace={"max_events": args.trace_max, "learn": args.trace_learn} if not args.no_trace else False)
    try:
        result = simulate.simulate(job, on_record, on_progress, keep=args.keep)
    except RuntimeError as e:
        print(f"run_local: {e}", file=sys.stderr)
        return 2
    finally:
        if out_file:
            out_file.close()
    if tty and not args.quiet:
        sys.stderr.write("\n")
    if not args.quiet:
        p = result.final
        if p is not None:
            print(f"sim: {p.virtual_t:g} virtual s, {p.events:,} events in {result.wall_s:.1f} s "
                  f"({p.events_per_s:,.0f} events/s), seed {seed}"
                  + ("" if result.reproducible else " (NOT reproducible here: bubblewrap or setarch missing)"),
                  file=sys.stderr)
    if result.failure:
        print(f"run_local: {result.failure}", file=sys.stderr)
    return 0 if result.code == 0 else 1


def run(args: argparse.Namespace) -> int:
    if args.sim:
        return run_sim(args)
    if args.backend == "docker":
        from run_docker import run_docker  # sandbox/run_docker.py: only for --backend docker
        return run_docker(args)
    app = Path(args.app)
    if not app.is_file():
        print(f"run_local: no such file: {app}", file=sys.stderr)
        return 2
    luajit = shutil.which("luajit")
    if not luajit:
        print("run_local: luajit not found (apt-get install luajit)", file=sys.stderr)
        return 2
    n, host = args.nodes, "127.0.0.1"
    base = free_port_base(n, host)
    nodes = [{"ip": host, "port": base + i} for i in range(n)]
    root = Path(tempfile.mkdtemp(prefix="splaylab-run-"))
    out_file = open(args.out, "w", encoding="utf-8") if args.out else None
    start = time.time()
    output = Output(out_file, start, args.quiet, args.output_limits)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": "/nonexistent"}
    preexec = rlimit_preexec(args.max_mem, int(args.time) + 5, 256, 64 * 1024 * 1024)
    sel = selectors.DefaultSelector()
    running: list[Node] = []
    failed = False
    plan = getattr(args, "churn_plan", None)
    sessions: dict[int, int] = {}
    by_k: dict[int, Node] = {}
    open_pipes = 0

    def start_node(k: int) -> None:
        nonlocal open_pipes
        sessions[k] = sessions.get(k, 0) + 1
        wd = root / (f"node-{k}" if sessions[k] == 1 else f"node-{k}.{sessions[k]}")
        wd.mkdir()
        shutil.copyfile(app, wd / "app.lua")
        if args.harness:
            shutil.copyfile(args.harness, wd / "harness.lua")
        (wd / "job.json").write_text(json.dumps(job_spec(args, nodes, k)))
        proc = subprocess.Popen([luajit, str(NODE_LUA), "job.json", "app.lua"], cwd=wd, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=preexec, close_fds=True)
        node = Node(k, proc, wd)
        os.set_blocking(proc.stdout.fileno(), False)  # type: ignore[union-attr]
        sel.register(proc.stdout, selectors.EVENT_READ, node)  # type: ignore[arg-type]
        running.append(node)
        by_k[k] = node
        open_pipes += 1

    def kill(node: Node, sig: int) -> None:
        try:
            os.killpg(node.proc.pid, sig)
        except ProcessLookupError:
            pass

    def end_graceful_leave(node: Node) -> tuple[int, bool]:
        """The exit code of a node that left gracefully, and whether the run ended while it
        was still in its grace period (then it is killed now)."""
        if node.kill_at is None:  # the grace period's SIGKILL was sent
            return node.proc.wait(), False
        try:  # its output may end a moment before its exit status is there
            return node.proc.wait(timeout=0.2), False
        except subprocess.TimeoutExpired:
            kill(node, signal.SIGKILL)
            return node.proc.wait(), True

    def churn_event(e: Any) -> None:
        node = by_k.get(e.node)
        alive = node is not None and node.proc.poll() is None and node.left is None
        if e.kind == "join":
            if alive:
                return  # still up (it never left): nothing to start
            output.churn(e.node, "join", e.t)
            start_node(e.node)
        elif alive:
            output.churn(e.node, "leave", e.t, e.graceful)
            node.left = "graceful" if e.graceful else "failure"
            if e.graceful:
                kill(node, signal.SIGTERM)
                node.kill_at = time.time() + GRACE_S
            else:
                kill(node, signal.SIGKILL)

    try:
        events = [e for e in plan.events if e.kind in ("join", "leave")] if plan is not None else []
        next_event = 0
        if plan is None:
            for k in range(1, n + 1):
                start_node(k)
        deadline = start + (min(args.time, plan.end) if plan is not None and plan.end is not None else args.time)
        while open_pipes > 0 or next_event < len(events):
            now = time.time()
            left = deadline - now
            if left <= 0:
                break
            # joins and leaves due now, against this machine's clock (not the loop's pace)
            while next_event < len(events) and start + events[next_event].t <= now:
                churn_event(events[next_event])
                next_event += 1
            for node in running:
                if node.kill_at is not None and now >= node.kill_at and node.proc.poll() is None:
                    kill(node, signal.SIGKILL)
                    node.kill_at = None
            wait = min(left, 0.5)
            if next_event < len(events):
                wait = max(0.0, min(wait, start + events[next_event].t - time.time()))
            for key, _ in sel.select(timeout=wait):
                node = key.data
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    open_pipes -= 1
                    output.node_closed(node.k)
                    continue
                output.node_data(node.k, chunk)
            output.tick()
        timed_out = open_pipes > 0
        for node in running:   # the output ends here: pending rate records before the exits
            output.node_closed(node.k)
        for node in running:
            if node.left == "graceful":
                code, cut_short = end_graceful_leave(node)
                failed = report_graceful_leave(output, node.k, code, cut_short) or failed
                continue
            if node.left is not None:
                node.proc.wait()
                output.exit(node.k, 0, f"left (churn: {node.left})")
                continue
            if node.proc.poll() is None and timed_out:
                try:
                    os.killpg(node.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                node.proc.wait()
                output.exit(node.k, 0, f"stopped: the scenario's stop at {plan.end:g} s"
                            if plan is not None and plan.end is not None and plan.end < args.time
                            else "stopped: duration of %s s reached" % args.time)
                continue
            failed = report_exit(output, node.k, node.proc.wait()) or failed
    except KeyboardInterrupt:
        failed = True
    finally:
        for node in running:
            if node.proc.poll() is None:
                try:
                    os.killpg(node.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                node.proc.wait()
        sel.close()
        if out_file:
            out_file.close()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"run_local: node directories kept in {root}", file=sys.stderr)
    return 1 if failed else 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="splaylab run", description="run a SPLAY app on N local nodes")
    p.add_argument("app", help="the Lua application")
    p.add_argument("--nodes", "-n", type=int, help="how many nodes (default 3; with --churn, the scenario's)")
    p.add_argument("--time", "-t", type=float, default=30, help="duration in seconds (default 30)")
    p.add_argument("--seed", type=int, help="seed math.random reproducibly (mixed with the position)")
    p.add_argument("--out", help="write the JSONL records to this file")
    p.add_argument("--max-mem", type=int, default=512 * 1024 * 1024, help="address space per node (bytes)")
    p.add_argument("--quiet", "-q", action="store_true", help="do not print the live log")
    p.add_argument("--keep", action="store_true", help="keep the nodes' working directories")
    p.add_argument("--backend", choices=("process", "docker"), default="process",
                   help="process: one sandboxed process per node (default); docker: the nodes "
                        "in one hardened container (needs the Docker SDK and an engine)")
    p.add_argument("--churn", metavar="FILE", help="a churn script or trace (docs/churn.md): nodes join "
                   "and leave as it says (process backend)")
    grading = p.add_argument_group("measurement plane (docs/trace.md, docs/grading.md)")
    grading.add_argument("--harness", metavar="FILE", help="an assignment's harness: loaded in every node before "
                         "the app, in an environment of its own, with the runtime's capability")
    grading.add_argument("--trace", action="store_true", help="live: trace every message (always on with --sim)")
    grading.add_argument("--trace-max", type=int, default=20000, metavar="N",
                         help="trace rows a node lists before it aggregates (default 20000)")
    grading.add_argument("--trace-learn", action="store_true", help="the trace also names the peers each "
                         "received message carries (`learned` rows: peer-sampling checks)")
    grading.add_argument("--no-trace", action="store_true", help="--sim without the trace (for benchmarks)")
    limits = p.add_argument_group("output limits (a daemon's, docs/architecture.md \"Output limits\")")
    limits.add_argument("--log-lines-per-second", type=int, default=OutputLimits().lines_per_second, metavar="N",
                        help="lines a node may print per second, the rest dropped and counted (default %(default)s)")
    limits.add_argument("--log-max-size", default=f"{OutputLimits().max_size // 2**20}MB", metavar="SIZE",
                        help="bytes the whole run may print (e.g. 50MB, 512KB), then its output is dropped "
                             "(default %(default)s)")
    sim = p.add_argument_group("simulation (docs/simulation.md)")
    sim.add_argument("--sim", action="store_true", help="simulate: every node in one process on a virtual clock; "
                     "same seed, same output")
    sim.add_argument("--spin-limit", type=float, default=10.0,
                     help="CPU seconds one node may compute without waiting before the run stops (default 10)")
    sim.add_argument("--sim-max-mem", type=int, default=4 * 1024 ** 3,
                     help="address space of the whole simulation (bytes, default 4 GiB)")
    net = p.add_argument_group("emulated network (docs/network.md; every delay is ONE-WAY)")
    net.add_argument("--net", default="lan", help="lan (default), const:50ms, jitter:50ms:10ms, "
                     "transit-stub[:TRANSITS:STUBS], king, matrix:FILE, trace:FILE[:PERIOD]")
    net.add_argument("--loss", help="loss probability per packet, 0.01 or 1%%")
    net.add_argument("--bandwidth", help="per-node upload cap, e.g. 10mbit, 500kbit, 2MB/s")
    net.add_argument("--partition", action="append", metavar="AT[+FOR]:GROUPS",
                     help="split the nodes, e.g. 10s+20s:0.5 (first half vs the rest, healed at 30 s) "
                          "or 5s:1-10|11-20; repeatable")
    net.add_argument("--asymmetric", action="store_true", help="accept an asymmetric matrix")
    net.add_argument("--mtu", type=int, default=1500, help="bytes per packet for loss (default 1500)")
    return p


def _terminated(signum: int, frame: Any) -> None:
    # SIGTERM (a benchmark, a CI timeout) ends the run like Ctrl-C: the nodes are killed and
    # the Docker backend's container removed, instead of being left behind.
    raise KeyboardInterrupt


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, _terminated)
    args = parser().parse_args(argv)
    if args.sim and args.backend != "process":
        print("run_local: --sim and --backend docker exclude each other", file=sys.stderr)
        return 2
    if args.churn and args.backend != "process":
        print("run_local: --churn runs on the process backend only", file=sys.stderr)
        return 2
    if args.churn:
        error = churn_plan(args)
        if error:
            print(f"run_local: {error}", file=sys.stderr)
            return 2
    elif args.nodes is None:
        args.nodes = 3
    if args.harness and not Path(args.harness).is_file():
        print(f"run_local: no such file: {args.harness}", file=sys.stderr)
        return 2
    if args.trace_max < 1:
        print("run_local: --trace-max must be >= 1", file=sys.stderr)
        return 2
    if args.nodes < 1 or args.time <= 0:
        print("run_local: --nodes must be >= 1 and --time > 0", file=sys.stderr)
        return 2
    error = network_blocks(args) or bootstrap_list(args) or output_limits(args)
    if error:
        print(f"run_local: {error}", file=sys.stderr)
        return 2
    return run(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
