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
import signal
import sys
from pathlib import Path
from typing import Any

SANDBOX = Path(__file__).resolve().parent

if str(SANDBOX) not in sys.path:
    sys.path.insert(0, str(SANDBOX))
from run_options import bootstrap_list, churn_plan, network_blocks, output_limits  # noqa: E402
from run_setup import free_port_base  # noqa: E402,F401  (tests import it from here)
from simulate import TRANSPORTS  # noqa: E402
from splayd.output_limits import OutputLimits  # noqa: E402  (run_records: daemon/ on the path)


def run(args: argparse.Namespace) -> int:
    """Run the checked options on the chosen backend; the exit status."""
    if args.sim:
        from run_sim import run_sim  # sandbox/run_sim.py
        return run_sim(args)
    if args.backend == "docker":
        from run_docker import run_docker  # sandbox/run_docker.py: only for --backend docker
        return run_docker(args)
    from run_process import run_processes  # sandbox/run_process.py
    return run_processes(args)


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
    sim.add_argument("--sim-transport", choices=TRANSPORTS, default=None,
                     help="how splay.rpc/urpc messages travel: fast (the default: copies of what the codec "
                          "would deliver, sized as encoded) or sockets (encoded over the simulated sockets, "
                          "as live)")
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


def checked_args(argv: list[str]) -> tuple[argparse.Namespace, str | None]:
    """argv parsed (argparse exits on what it cannot parse) and checked: (args, None), or
    (args, what is wrong). Also the grader's way in (grading/grader/runner.py)."""
    args = parser().parse_args(argv)
    if args.sim and args.backend != "process":
        return args, "--sim and --backend docker exclude each other"
    if args.sim_transport and not args.sim:
        return args, "--sim-transport needs --sim"
    if args.churn and args.backend != "process":
        return args, "--churn runs on the process backend only"
    if args.churn:
        error = churn_plan(args)
        if error:
            return args, error
    elif args.nodes is None:
        args.nodes = 3
    if args.harness and not Path(args.harness).is_file():
        return args, f"no such file: {args.harness}"
    if args.trace_max < 1:
        return args, "--trace-max must be >= 1"
    if args.nodes < 1 or args.time <= 0:
        return args, "--nodes must be >= 1 and --time > 0"
    return args, network_blocks(args) or bootstrap_list(args) or output_limits(args)


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, _terminated)
    args, error = checked_args(argv)
    if error:
        print(f"run_local: {error}", file=sys.stderr)
        return 2
    return run(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
