#!/usr/bin/env python3
"""Simulator scale: Chord with stabilisation, 10 simulated minutes, 2 lookups per node.

    .venv/bin/python bench/sim_scale.py [--nodes 1000] [--time 600] [--seed 1]

The app is the chord-latency lab's reference (assignments/chord-latency/chord.lua) with its
timeline scaled to the population: joins spread over the first 200 s (maintenance every 1 s
while the ring forms, every 5 s after), the ring settles 200 s, then each node runs 2 lookups
of random keys over 150 s. Prints wall time, events and events/s, peak resident memory of the
simulator and bytes per simulated node, lookups done and their median latency and hops.
The issue's goal: 10,000 nodes in <= 60 s of wall time on one core and <= 4 GB.
"""
from __future__ import annotations

import argparse
import json
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


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--time", type=float, default=600)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--net", default="lan", help="a network model of ./splaylab run --net (default: the LAN)")
    p.add_argument("--sim-transport", choices=simulate.TRANSPORTS, default="fast",
                   help="rpc messages: fast (copies, the default) or sockets (encoded, as live)")
    args = p.parse_args()
    latencies: list[float] = []
    hops: list[int] = []
    errors: list[str] = []

    def on_record(k: int, t: float, level: str, text: str) -> None:
        if level == "metric":
            m = json.loads(text)
            if m.get("name") == "lookup_latency":
                latencies.append(float(m["value"]))
                hops.append(int((m.get("fields") or {}).get("hops", 0)))
        elif level in ("error", "fatal") and len(errors) < 5:
            errors.append(f"node {k} at {t}: {text}")

    def on_progress(pr: simulate.Progress) -> None:
        print(f"  virtual {pr.virtual_t:7.1f} s, {pr.events:>11,} events, {pr.events_per_s:>9,.0f} events/s",
              file=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        blocks = None
        if args.net != "lan":
            import netmodel
            blocks = netmodel.compile_job(netmodel.parse_net(args.net), args.nodes, args.seed, duration=args.time)
        job = simulate.SimJob(app=chord_app(args.nodes, Path(tmp)), nodes=args.nodes, time=args.time,
                              seed=args.seed, net_blocks=blocks, max_wall=24 * 3600, max_cpu=24 * 3600,
                              list_size=1, transport=args.sim_transport)
        result = simulate.simulate(job, on_record, on_progress)
    final = result.final
    peak_kb = final.peak_rss_kb if final else 0
    print(f"Chord, {args.nodes:,} simulated nodes, {args.time:g} virtual s, net {args.net}, seed {args.seed}, "
          f"transport {args.sim_transport} (reproducible: {result.reproducible})")
    print(f"  wall time          {result.wall_s:10.1f} s")
    if final:
        print(f"  events             {final.events:>10,}  ({final.events / result.wall_s:,.0f} events/s)")
    print(f"  peak memory        {peak_kb / 1024:10.0f} MiB  ({peak_kb * 1024 / args.nodes:,.0f} bytes per node)")
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
