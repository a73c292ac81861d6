#!/usr/bin/env python3
"""Why a simulated call costs more with more nodes, modelled: the runtime's memory layout.

    .venv/bin/python bench/sim_locality.py [--nodes 64,1000,10000] [--calls 200000] [--runs 3]

Runs bench/lua/locality.lua (a model: the same chain of 30 runtime functions run per call on two
nodes drawn at random) for each layout and population, each in a fresh LuaJIT, the layouts
alternated, and prints the median microseconds per call with the spread:

  instances  each node its own instance of every module (splaylab.sim.world today)
  shared     one set of functions, each node one state table per module
  compact    one set of functions, each node one array of every module's state

The simulator's own figures (docs/simulation.md) grow from 4.8 us per event at 64 nodes to 15.6 at
1,000 and 22 at 10,000 with the same work per event; the model asks how much of that growth the
layout explains, and what the structural change named there would buy. Asserts nothing about time.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "bench" / "lua" / "locality.lua"
LAYOUTS = ("instances", "shared", "compact")


def run(layout: str, nodes: int, calls: int) -> tuple[float, float]:
    out = subprocess.run(["luajit", str(MODEL), layout, str(nodes), str(calls)], check=True,
                         capture_output=True, text=True).stdout.split("\t")
    return float(out[2]), float(out[3])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nodes", default="64,1000,10000")
    p.add_argument("--calls", type=int, default=200000)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    sizes = [int(n) for n in args.nodes.split(",")]
    print(f"{'layout':10s} {'nodes':>7s} {'KB/node':>8s} {'us per call (median, spread)':>30s}")
    for n in sizes:
        times: dict[str, list[float]] = {k: [] for k in LAYOUTS}
        kb: dict[str, float] = {}
        for _ in range(args.runs):
            for layout in LAYOUTS:
                kb[layout], us = run(layout, n, args.calls)
                times[layout].append(us)
        for layout in LAYOUTS:
            t = times[layout]
            print(f"{layout:10s} {n:7d} {kb[layout]:8.0f} {statistics.median(t):12.2f}  "
                  f"({min(t):.2f} - {max(t):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
