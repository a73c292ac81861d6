#!/usr/bin/env python3
"""What the simulator executes, in instructions counted by valgrind (cachegrind), the JIT included,
with the JIT's random draws fixed: a figure that repeats to within a few instructions in billions,
where CPU seconds on this VM vary by up to 40 % from run to run.

    .venv/bin/python bench/sim_instructions.py [--nodes 64] [--time 240] [--seeds 1,2,3] [--layouts 1]
                                               [--net lan | --assignment DIR] [--cache] [--sandbox DIR [--sandbox DIR ...]]

Runs bench/sim_scale.py's Chord (the same app and timeline; --net: under that network model), or
with --assignment an assignment's grading run of its reference (as the grader runs it), through sim.lua under cachegrind, once
per JIT seed and sandbox, and prints instructions in all and per event, the keys-sorted digest of
the records (the same for every run of the same input, whatever the tree or the seed), and each
tree's mean; with two trees, the ratio per seed and of the means. --cache also simulates the
caches (I1 32 KB and D1 48 KB, this VM's; LL 32 MB, a share of a large server's L3) and prints the
misses of each: what a node's state spread over the heap (D1, LL) and the JIT's machine code spread
over thousands of traces (I1) cost, which instruction counts do not show.

Why seeds: LuaJIT seeds its PRNG from getrandom() and draws from it when it penalises an aborted
trace, so the traces a run gets differ from run to run: the chord grading run of one tree takes
3.3 to 3.9 G instructions by seed, the same records each time. bench/native/jit_seed.c (compiled
here, loaded with LD_PRELOAD) makes getrandom() give bytes made from the seed; simulate.py fixes
them for every real run the same way (one seed: its urandom file). A change to the runtime moves
which traces fail, so compare trees over several seeds, not one. Where the code lies in memory is
a second draw of the same kind (LAYOUT_STEP below): --layouts N runs every seed in N layouts.
Each draw of one tree moves by up to 7 %: a mean over six draws tells ~2 - 3 %, not less.
Paths reach the run (chunk names, strings, the JIT through them): every sandbox is copied to one
fixed path and the run's directory is fixed too, so trees are compared on the same paths.
Needs valgrind and a C compiler (scripts/install-deps.sh --bench): this benchmark only. Each run is
~100 times slower than the simulation: 64 nodes for 240 virtual s take ~2 minutes.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "sandbox"))
sys.path.insert(0, str(ROOT / "bench"))
import sim_scale  # noqa: E402

BASE = Path(tempfile.gettempdir()) / "splaylab-sim-instructions"   # fixed: see the docstring
# this VM's L1 caches (what valgrind detects here), given so that other machines simulate the same
I1, D1, LL = "32768,8,64", "49152,12,64", "33554432,16,64"


def records_digest(text: str) -> str:
    """The records with every JSON text's keys sorted (the order of a node's JSON keys may differ
    between trees: docs/simulation.md, "The collector's budget"), a bt app's mem= counter aside."""
    h = hashlib.sha256()
    for line in text.splitlines():
        parts = line.split("\t", 3)
        try:
            line = "\t".join(parts[:-1] + [json.dumps(json.loads(parts[-1]), sort_keys=True)])
        except (ValueError, IndexError):
            pass
        h.update(re.sub(r"mem=[0-9]+ko", "", line).encode() + b"\n")
    return h.hexdigest()[:16]


def build_shim(folder: Path) -> Path:
    shim = folder / "jit_seed.so"
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(shim), str(ROOT / "bench" / "native" / "jit_seed.c"),
                    "-ldl"], check=True)
    return shim


# Layouts: LuaJIT's 64 hot counters are shared by bytecode address ((pc >> 2) & 63), so where the
# prototypes lie decides which loops turn hot together (figures: docs/simulation.md, seventeenth
# session). Layout k > 0 allocates k * LAYOUT_STEP bytes before sim.lua loads anything (a string
# kept in a global of the simulator's own state, which no node sees), moving every prototype after it.
LAYOUT_STEP = 48


def layout_args(layout: int) -> list[str]:
    return ["-e", f"SPLAYLAB_LAYOUT_PAD = string.rep('x', {layout * LAYOUT_STEP})"] if layout else []


def write_job(base: Path, nodes: int, time: float, seed: int, net: str = "lan",
              assignment: Path | None = None) -> Path:
    """sim.json and its files in base/run (the run's own directory, the same for every run):
    sim_scale.py's Chord, or an assignment's grading run of its reference."""
    run = base / "run"
    shutil.rmtree(run, ignore_errors=True)
    if assignment is not None:
        return sim_scale.grading_run_dir(assignment, run)
    return sim_scale.chord_run_dir(nodes, time, seed, base, run, net)


def measure(sandbox: Path, run: Path, shim: Path, jit_seed: int, cache: bool, luajit: str | Path = "luajit",
            out_file: Path | None = None, layout: int = 0) -> dict:
    """One run under cachegrind (luajit: another build, e.g. bench/sim_where.py's with symbols;
    out_file: keep cachegrind's per-function counts there; layout: see LAYOUT_STEP)."""
    tree = run.parent / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(sandbox, tree / "sandbox", ignore=shutil.ignore_patterns("__pycache__", "tests", "spec"))
    sim_scale.empty_nodes_dir(run)
    argv = ["valgrind", "--tool=cachegrind", "--trace-children=yes", f"--cache-sim={'yes' if cache else 'no'}",
            f"--I1={I1}", f"--D1={D1}", f"--LL={LL}", f"--cachegrind-out-file={out_file or '/dev/null'}",
            "setarch", "x86_64", "-R", str(luajit), *layout_args(layout),
            str(tree / "sandbox" / "sim.lua"), "sim.json"]
    env = {"PATH": "/usr/bin:/bin", "LD_PRELOAD": str(shim), "JIT_SEED": str(jit_seed), "LANG": "C.UTF-8"}
    if str(luajit) != "luajit":   # another build: its own jit.* modules, the system's Lua modules
        paths = subprocess.run(["luajit", "-e", "io.write(package.path, '\\n', package.cpath)"],
                               capture_output=True, text=True, check=True).stdout.split("\n")
        env["LUA_PATH"] = f"{Path(luajit).parent}/?.lua;{paths[0]}"
        env["LUA_CPATH"] = paths[1]
    done = subprocess.run(argv, cwd=run, env=env, capture_output=True, text=True)
    err = done.stderr
    last = [ln for ln in err.splitlines() if ln.startswith("done ")]
    refs = re.search(r"I\s+refs:\s+([\d,]+)", err)
    if not last or not refs:
        raise SystemExit(f"{sandbox}: the run failed\n{err[-3000:]}")
    out = {"instructions": int(refs.group(1).replace(",", "")), "events": int(float(last[-1].split()[2])),
           "records": records_digest(done.stdout)}
    if cache:
        for name, key in (("I1", "i1_misses"), ("D1", "d1_misses"), ("LLd", "ll_misses")):
            m = re.search(name + r"\s+misses:\s+([\d,]+)", err)
            out[key] = int(m.group(1).replace(",", "")) if m else 0
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=64)
    p.add_argument("--time", type=float, default=240)
    p.add_argument("--seed", type=int, default=1, help="the simulation's seed")
    p.add_argument("--net", default="lan", help="a network model of ./splaylab run --net (king: a grading run's delays)")
    p.add_argument("--assignment", type=Path, help="instead of the Chord: this assignment's first simulated grading run, "
                   "on its reference (e.g. assignments/chord)")
    p.add_argument("--seeds", default="1,2,3", help="the JIT's seeds, one run each (comma-separated)")
    p.add_argument("--layouts", type=int, default=1,
                   help="memory layouts per seed (0, 1, ...: see LAYOUT_STEP); each seed runs in each")
    p.add_argument("--cache", action="store_true", help="simulate the caches too (I1, D1, LL misses)")
    p.add_argument("--sandbox", type=Path, action="append", help="a sandbox/ to run (repeat to compare trees)")
    p.add_argument("--scratch", type=Path, default=BASE,
                   help=f"where the runs and the copied trees go ({BASE}; another for two at once)")
    args = p.parse_args()
    if args.layouts < 1:
        p.error("--layouts must be at least 1")
    for tool in ("valgrind", "cc", "luajit", "setarch"):
        if not shutil.which(tool):
            print(f"sim_instructions: {tool} not found (scripts/install-deps.sh --bench)", file=sys.stderr)
            return 2
    sandboxes = [s.resolve() for s in (args.sandbox or [ROOT / "sandbox"])]
    seeds = [int(s) for s in args.seeds.split(",")]
    args.scratch.mkdir(parents=True, exist_ok=True)
    shim = build_shim(args.scratch)
    run = write_job(args.scratch, args.nodes, args.time, args.seed, args.net, args.assignment)
    what = (f"{args.assignment}'s grading run" if args.assignment else
            f"{args.nodes} nodes, {args.time:g} virtual s, net {args.net}")
    print(f"{what}, JIT seeds {args.seeds}, {args.layouts} layout(s) each")
    results: dict[Path, list[dict]] = {s: [] for s in sandboxes}
    draws = [(jit_seed, layout) for jit_seed in seeds for layout in range(args.layouts)]
    for jit_seed, layout in draws:   # trees alternate within a draw
        for sandbox in sandboxes:
            r = measure(sandbox, run, shim, jit_seed, args.cache, layout=layout)
            results[sandbox].append(r)
            n = r["events"]
            misses = (f"  I1 misses {r['i1_misses'] / n:6.1f}/event  D1 {r['d1_misses'] / n:6.1f}/event"
                      f"  LL {r['ll_misses'] / n:5.2f}/event" if args.cache else "")
            print(f"  seed {jit_seed} layout {layout}  {r['instructions']:>15,} instructions  "
                  f"{r['instructions'] / r['events']:8,.0f}/event  {r['events']:,} events  records {r['records']}"
                  f"{misses}  {sandbox}", flush=True)
    print()
    means = {}
    for sandbox, rs in results.items():
        means[sandbox] = statistics.mean(r["instructions"] for r in rs)
        line = (f"  mean {means[sandbox]:,.0f} instructions (min {min(r['instructions'] for r in rs):,}, "
                f"max {max(r['instructions'] for r in rs):,})")
        if args.cache:
            line += (f", I1 misses {statistics.mean(r['i1_misses'] for r in rs):,.0f}, "
                     f"D1 {statistics.mean(r['d1_misses'] for r in rs):,.0f}, "
                     f"LL {statistics.mean(r['ll_misses'] for r in rs):,.0f}")
        print(f"{line}  {sandbox}")
    if len(sandboxes) == 2:
        a, b = sandboxes
        ratios = [rb["instructions"] / ra["instructions"] for ra, rb in zip(results[a], results[b])]
        print(f"\nsecond / first: mean {means[b] / means[a]:.4f}, per draw "
              + ", ".join(f"{x:.4f}" for x in ratios))
    digests = {r["records"] for rs in results.values() for r in rs}
    print("records: the same in every run" if len(digests) == 1 else f"records DIFFER: {sorted(digests)}")
    return 0 if len(digests) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
