#!/usr/bin/env python3
"""Simulator scale: Chord with stabilisation, 10 simulated minutes, 2 lookups per node.

    .venv/bin/python bench/sim_scale.py [--nodes 1000] [--time 600] [--seed 1] [--max-mem GB]
    .venv/bin/python bench/sim_scale.py --app cyclon --nodes 100000 --time 60 --max-mem 20

The app is the chord-latency lab's reference (assignments/chord-latency/chord.lua) with its
timeline scaled to the population: joins spread over the first 200 s (maintenance every 1 s
while the ring forms, every 5 s after), the ring settles 200 s, then each node runs 2 lookups
of random keys over 150 s. Prints wall time, events and events/s, peak resident memory of the
simulator and bytes per simulated node, lookups done and their median latency and hops.
The issue's goal: 10,000 nodes in <= 60 s of wall time on one core and <= 4 GB.

--app cyclon: the cyclon assignment's reference (peer sampling: every node shuffles its view of
10 with its oldest neighbour every 5 s), every node joining at 0 and knowing 3 nodes of the job
drawn at random (list_type random, list_size 3; the job's first 3 for every node would refuse
most shuffles at their 256-socket limit): populations far past what Chord's 10 virtual minutes
allow here (100,000 nodes). Prints the shuffles made and how they ended (from the runtime's
trace) instead of lookups.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "sandbox"))
import simulate  # noqa: E402

TIMELINE = "PERIOD, STEADY_PERIOD, JOIN_GAP, SETTLE, WINDOW, LOOKUPS = 1, 5, 0.25, 40, 30, 10"


def chord_app(nodes: int, folder: Path) -> Path:
    src = (ROOT / "assignments" / "chord-latency" / "chord.lua").read_text()
    assert TIMELINE in src, "the lab's timeline line changed: update bench/sim_scale.py"
    assert "max_time 150\n" in src and src.count("#job.nodes") == 2, "the lab changed: update bench/sim_scale.py"
    # A bootstrap list of one node (list_size 1), as SPLAY deployments of this size use: a full
    # job.nodes is a table per node and entry (~1.2 MB per node at 10,000 nodes). The lab reads
    # the population from #job.nodes: here it is given.
    src = src.replace("max_time 150\n", "max_time 150\nlist_size 1\n").replace("#job.nodes", str(nodes))
    app = folder / "chord.lua"
    app.write_text(src.replace(TIMELINE, f"PERIOD, STEADY_PERIOD, JOIN_GAP, SETTLE, WINDOW, LOOKUPS = "
                                         f"1, 5, {200 / nodes!r}, 200, 150, 2"))
    return app


def net_blocks(net: str, nodes: int, seed: int, time: float) -> list | None:
    """The network model `net` (./splaylab run --net) compiled for the job; None for the LAN."""
    if net == "lan":
        return None
    import netmodel
    return netmodel.compile_job(netmodel.parse_net(net), nodes, seed, duration=time)


def chord_run_dir(nodes: int, time: float, seed: int, folder: Path, run: Path, net: str = "lan") -> Path:
    """The Chord's sim.json and files in `run`, nothing run: for sim.lua started by hand
    (bench/sim_bytecodes.py, bench/sim_instructions.py). Returns `run`."""
    job = simulate.SimJob(app=chord_app(nodes, folder), nodes=nodes, time=time, seed=seed,
                          net_blocks=net_blocks(net, nodes, seed, time), max_wall=99999, max_cpu=99999, list_size=1)
    # writes sim.json and the node directories, runs nothing (cancelled before the start)
    simulate.simulate(job, lambda *a: None, None, workdir=run, keep=True, cancel=lambda: True)
    empty_nodes_dir(run)
    return run


def grading_run_dir(assignment: Path, run: Path) -> Path:
    """The first simulated run of an assignment's grading, on its reference, as the grader runs
    it (backend/grading/grader/runner.py: its seed, harness, network, trace summed): sim.json and
    its files in `run`, nothing run. Returns `run`."""
    sys.path.insert(0, str(ROOT / "backend"))
    import run_local
    import run_sim
    from run_records import Output
    from grading.grader import load_assignment
    from grading.grader.runner import run_argv
    a = load_assignment(assignment)
    spec = next((r for r in a.runs if r.mode == "sim"), None)
    if spec is None:
        raise SystemExit(f"{assignment}: no simulated run")
    with tempfile.TemporaryDirectory() as tmp:
        argv = run_argv(Path(tmp), a.reference, a.harness, spec, a.files.get(spec.churn) if spec.churn else None)
        args, error = run_local.checked_args(argv[2:])
        if error:
            raise SystemExit(f"{assignment}: {error}")
        run_sim._simulate(args, Output(None, 0.0, True, sink=lambda r: None), cancel=lambda: True, workdir=run)
    empty_nodes_dir(run)
    return run


def empty_nodes_dir(run: Path) -> None:
    """sim.lua makes each node's directory itself: nodes/ must be empty before each run."""
    shutil.rmtree(run / "nodes")
    (run / "nodes").mkdir()


def cyclon_app(folder: Path) -> Path:
    app = folder / "cyclon.lua"
    app.write_text((ROOT / "assignments" / "cyclon" / "reference" / "app.lua").read_text())
    return app


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--time", type=float, default=600)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--net", default="lan", help="a network model of ./splaylab run --net (default: the LAN)")
    p.add_argument("--sim-transport", choices=simulate.TRANSPORTS, default="fast",
                   help="rpc messages: fast (copies, the default) or sockets (encoded, as live)")
    p.add_argument("--app", choices=("chord", "cyclon"), default="chord")
    p.add_argument("--max-mem", type=float, default=4, help="the simulation's address space, GB (default 4)")
    args = p.parse_args()
    shuffles: dict[str, int] = {"ok": 0}
    latencies: list[float] = []
    hops: list[int] = []
    errors: list[str] = []

    def on_record(k: int, t: float, level: str, text: str) -> None:
        if level == "metric":
            m = json.loads(text)
            if m.get("name") == "lookup_latency":
                latencies.append(float(m["value"]))
                hops.append(int((m.get("fields") or {}).get("hops", 0)))
        elif level == "trace" and args.app == "cyclon":
            for row in json.loads(text)["rows"]:   # [t, type, peer, name, out, in, outcome, ..., count]
                if row[1] == "call" and row[3] == "on_shuffle":
                    shuffles[row[6]] = shuffles.get(row[6], 0) + row[10]
        elif level in ("error", "fatal") and len(errors) < 5:
            errors.append(f"node {k} at {t}: {text}")

    def on_progress(pr: simulate.Progress) -> None:
        print(f"  virtual {pr.virtual_t:7.1f} s, {pr.events:>11,} events, {pr.events_per_s:>9,.0f} events/s",
              file=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        blocks = net_blocks(args.net, args.nodes, args.seed, args.time)
        app = chord_app(args.nodes, Path(tmp)) if args.app == "chord" else cyclon_app(Path(tmp))
        job = simulate.SimJob(app=app, nodes=args.nodes, time=args.time,
                              seed=args.seed, net_blocks=blocks, max_wall=24 * 3600, max_cpu=24 * 3600,
                              max_mem=int(args.max_mem * 1024 ** 3), list_size=1 if args.app == "chord" else 3,
                              list_type="head" if args.app == "chord" else "random",
                              transport=args.sim_transport)
        result = simulate.simulate(job, on_record, on_progress)
    final = result.final
    peak_kb = final.peak_rss_kb if final else 0
    print(f"{args.app.capitalize()}, {args.nodes:,} simulated nodes, {args.time:g} virtual s, net {args.net}, seed {args.seed}, "
          f"transport {args.sim_transport} (reproducible: {result.reproducible})")
    print(f"  wall time          {result.wall_s:10.1f} s")
    if final:
        print(f"  events             {final.events:>10,}  ({final.events / result.wall_s:,.0f} events/s)")
    print(f"  peak memory        {peak_kb / 1024:10.0f} MiB  ({peak_kb * 1024 / args.nodes:,.0f} bytes per node)")
    if args.app == "cyclon":
        print(f"  shuffles           {sum(shuffles.values()):>10,}  ("
              + ", ".join(f"{n:,} {outcome}" for outcome, n in sorted(shuffles.items())) + ")")
    else:
        print(f"  lookups            {len(latencies):>10,}  (expected {2 * args.nodes:,})")
    if latencies:
        print(f"  lookup latency     median {statistics.median(latencies) * 1000:.1f} ms, "
              f"hops median {statistics.median(hops):g}")
    for e in errors:
        print(f"  error: {e}")
    if result.failure:
        print(f"  stopped: {result.failure}")
    return 0 if result.code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
