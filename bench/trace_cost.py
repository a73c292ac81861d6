#!/usr/bin/env python3
"""What the message trace costs (docs/trace.md): the simulator with the trace on and off, and a
live splay.rpc round trip with and without it.

    .venv/bin/python bench/trace_cost.py [--nodes 1000] [--time 300] [--repeat 2] [--skip-live] [--pinned]

Simulation: bench/sim_scale.py's Chord (the chord-latency lab's, scaled to the population: joins
over 200 s, maintenance, 2 lookups per node), run --repeat times each way, alternating; prints
wall seconds, events/s and peak memory per run, the best of each, and the trace's cost in %.
The issue's target: at most 10 % slower at 1,000 nodes.
--pinned: the same simulation's sim.lua run directly (no bubblewrap), pinned to one core
(taskset -c 1), trace on and off alternating, comparing CPU seconds (min and median): wall times on
a shared VM vary by 15 % from run to run, CPU times of a pinned process much less.
Live: bench/rpc_app.lua on 2 local nodes (9 rounds of 1,000 calls on a kept connection, then
9 rounds with a connection per call), with and without --trace, --repeat times each way; prints
the median round trip of each and the trace's cost in %. Target: at most 10 % more.
Asserts nothing: figures for the note and bench/README.md.
"""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "sandbox"))
sys.path.insert(0, str(ROOT / "bench"))
import simulate  # noqa: E402
from sim_scale import chord_app  # noqa: E402


def simulated(app: Path, nodes: int, duration: float, seed: int, traced: bool) -> tuple[float, float, int, int]:
    """(wall s, events/s, peak RSS KB, trace rows) of one simulation."""
    rows = 0

    def on_record(k: int, t: float, level: str, text: str) -> None:
        nonlocal rows
        if level == "trace":
            rows += len(json.loads(text)["rows"])

    job = simulate.SimJob(app=app, nodes=nodes, time=duration, seed=seed, list_size=1,
                          trace=None if traced else False, max_wall=7200)
    started = time.monotonic()
    result = simulate.simulate(job, on_record)
    wall = time.monotonic() - started
    final = result.final
    return wall, final.events_per_s if final else 0.0, final.peak_rss_kb if final else 0, rows


def pinned(app: Path, nodes: int, duration: float, seed: int, repeat: int) -> dict[bool, list[float]]:
    """CPU seconds of sim.lua on the simulation's own sim.json, trace on and off, alternating."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "sim"
        job = simulate.SimJob(app=app, nodes=nodes, time=duration, seed=seed, list_size=1, max_wall=7200)
        simulate.simulate(job, lambda *a: None, workdir=work, keep=True)   # writes sim.json (trace on)
        spec = json.loads((work / "sim.json").read_text())
        (work / "sim-off.json").write_text(json.dumps({**spec, "trace": False}))
        cpu: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(repeat):
            for traced in (False, True):
                shutil.rmtree(work / "nodes", ignore_errors=True)
                (work / "nodes").mkdir()
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run(["taskset", "-c", "1", "luajit", str(ROOT / "sandbox" / "sim.lua"),
                                "sim.json" if traced else "sim-off.json"], cwd=work,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[traced].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
                print(f"pinned sim.lua, trace {'on ' if traced else 'off'}: {cpu[traced][-1]:.1f} CPU s", flush=True)
        return cpu


def live_rtt(traced: bool) -> tuple[float, float]:
    """(median kept-connection round trip, median connection-per-call round trip), seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rtt.jsonl"
        argv = [sys.executable, str(ROOT / "sandbox" / "run_local.py"), str(ROOT / "bench" / "rpc_app.lua"),
                "--nodes", "2", "--time", "60", "--out", str(out), "--quiet"] + (["--trace"] if traced else [])
        subprocess.run(argv, check=False, capture_output=True, timeout=120)
        values: dict[str, list[float]] = {"rpc_rtt_kept": [], "rpc_rtt_per_call": []}
        for line in out.read_text().splitlines():
            r = json.loads(line)
            if r["kind"] == "metric" and r["name"] in values:
                values[r["name"]].append(float(r["value"]))
    return statistics.median(values["rpc_rtt_kept"]), statistics.median(values["rpc_rtt_per_call"])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--time", type=float, default=300)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--skip-live", action="store_true")
    p.add_argument("--skip-sim", action="store_true")
    p.add_argument("--pinned", action="store_true", help="compare CPU seconds of a pinned sim.lua instead of wall time")
    args = p.parse_args()

    if args.pinned and not args.skip_sim:
        with tempfile.TemporaryDirectory() as tmp:
            cpu = pinned(chord_app(args.nodes, Path(tmp)), args.nodes, args.time, args.seed, args.repeat)
        for stat in (min, statistics.median):
            print(f"pinned {stat.__name__}: off {stat(cpu[False]):.1f} CPU s, on {stat(cpu[True]):.1f} CPU s: the trace "
                  f"costs {100 * (stat(cpu[True]) / stat(cpu[False]) - 1):+.1f} %")
        args.skip_sim = True

    if not args.skip_sim:
        with tempfile.TemporaryDirectory() as tmp:
            app = chord_app(args.nodes, Path(tmp))
            best: dict[bool, float] = {}
            for i in range(args.repeat):
                for traced in (False, True):
                    wall, eps, rss, rows = simulated(app, args.nodes, args.time, args.seed, traced)
                    best[traced] = min(best.get(traced, wall), wall)
                    print(f"sim {args.nodes} nodes, {args.time:g} virtual s, trace {'on ' if traced else 'off'}: "
                          f"{wall:7.1f} s wall, {eps:9,.0f} events/s, peak {rss / 1024:6.0f} MiB, "
                          f"{rows:,} trace rows", flush=True)
            print(f"sim best: off {best[False]:.1f} s, on {best[True]:.1f} s: the trace costs "
                  f"{100 * (best[True] / best[False] - 1):+.1f} %")

    if not args.skip_live:
        runs: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
        for _ in range(args.repeat):
            for traced in (False, True):
                runs[traced].append(live_rtt(traced))
                kept, per_call = runs[traced][-1]
                print(f"live rpc, trace {'on ' if traced else 'off'}: kept connection {kept * 1e6:6.1f} us, "
                      f"connection per call {per_call * 1e6:6.1f} us", flush=True)
        for i, what in enumerate(("kept connection", "connection per call")):
            off = statistics.median(r[i] for r in runs[False])
            on = statistics.median(r[i] for r in runs[True])
            print(f"live rpc round trip, {what}: off {off * 1e6:.1f} us, on {on * 1e6:.1f} us: the trace costs "
                  f"{100 * (on / off - 1):+.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
