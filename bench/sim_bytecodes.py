#!/usr/bin/env python3
"""Where the simulator's work goes, in bytecodes: a count that does not depend on the machine's load.

    .venv/bin/python bench/sim_bytecodes.py [--nodes 64] [--time 600] [--seed 1] [--net lan] [--top 25] [--sandbox DIR]
    .venv/bin/python bench/sim_bytecodes.py --alloc [...]     bytes allocated instead, by source line

Runs bench/sim_scale.py's Chord (the same app and timeline) through sim.lua with the JIT off and a
count hook (bench/lua/bytecode_count.lua), and prints the bytecodes executed per rpc call: in all,
by runtime module, and for the most expensive functions. CPU seconds on this VM vary by up to 40 %
from run to run with other jobs; a change to the runtime's code moves these counts by exactly its
own work (interpreted: the JIT's gains and losses are not in it; compare CPU for those).
--sandbox runs another tree's sim.lua and runtime (a worktree's sandbox/) on the same input.
--alloc counts the bytes allocated (bench/lua/alloc_count.lua: the garbage the collector must
sweep, ~2 KB per call), charged to the line running within 3 bytecodes of each allocation.
"""
from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "sandbox"))
sys.path.insert(0, str(ROOT / "bench"))
import sim_scale  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=64)
    p.add_argument("--time", type=float, default=600)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--net", default="lan", help="a network model of ./splaylab run --net (king: a grading run's delays)")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--sandbox", type=Path, default=ROOT / "sandbox", help="the sandbox/ whose sim.lua runs")
    p.add_argument("--alloc", action="store_true", help="count bytes allocated, by line, instead of bytecodes")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="sim-bytecodes-") as tmp:
        folder = Path(tmp)
        sim_scale.chord_run_dir(args.nodes, args.time, args.seed, folder, folder / "w", args.net)
        report = folder / "counts.tsv"
        env = {"BYTECODE_OUT": str(report), "ALLOC_OUT": str(report), "LUA_PATH": f"{ROOT / 'bench' / 'lua'}/?.lua;;",
               "PATH": "/usr/bin:/bin"}
        hook = "alloc_count" if args.alloc else "bytecode_count"
        run = subprocess.run(["luajit", "-joff", "-l", hook, str(args.sandbox.resolve() / "sim.lua"), "sim.json"],
                             cwd=folder / "w", env=env, capture_output=True, text=True)
        done = [ln for ln in run.stderr.splitlines() if ln.startswith("done ")]
        if run.returncode != 0 or not done:
            print(run.stdout[-2000:], run.stderr[-2000:], file=sys.stderr)
            return 1
        calls = 0
        for line in run.stdout.splitlines():
            k, t, level, text = line.split("\t", 3)
            if level == "trace":
                calls += sum(1 for row in json.loads(text)["rows"] if row[1] == "call")
        by_fn: collections.Counter[str] = collections.Counter()
        for line in report.read_text().splitlines():
            n, key = line.split("\t", 1)
            by_fn[key] += int(n)
    total = sum(by_fn.values())
    by_file: collections.Counter[str] = collections.Counter()
    for key, n in by_fn.items():
        by_file[key.rsplit(":", 1)[0]] += n
    _, vt, events, nodes, _ = done[-1].split()
    unit = "bytes allocated" if args.alloc else "bytecodes"
    print(f"{args.nodes} nodes, {float(vt):g} virtual s, net {args.net}: {int(events):,} events, {calls:,} rpc calls, "
          f"{total:,} {unit} ({total / max(calls, 1):,.0f} per call, JIT off)")
    print(f"\nby file (share, {unit} per call):")
    for name, n in by_file.most_common():
        if n / total >= 0.002:
            print(f"  {100 * n / total:5.1f} %  {n / max(calls, 1):8,.0f}  {name}")
    where = "lines (file:line allocating)" if args.alloc else "functions (file:line where each is defined)"
    print(f"\nthe {args.top} costliest {where}:")
    for key, n in by_fn.most_common(args.top):
        print(f"  {100 * n / total:5.1f} %  {n / max(calls, 1):8,.0f}  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
