"""Where the simulator's instructions go inside LuaJIT: the interpreter, the JIT's machine code,
the JIT compiler, trace exits, tables, the allocator, the collector...

    .venv/bin/python bench/sim_where.py [--nodes 64] [--time 240] [--jit-seed 1] [--top 25]

Debian's LuaJIT is stripped, so cachegrind names none of its functions. This builds the same
LuaJIT (the source of the installed package's version, from deb.debian.org, once per scratch
directory) with its symbols, runs bench/sim_scale.py's Chord through sim.lua with it under
cachegrind (the JIT's draws fixed, as bench/sim_instructions.py does), and sums the instructions
by part of LuaJIT. The build is this benchmark's only: the service runs Debian's package.
Needs valgrind, cc, make and the network to deb.debian.org (scripts/install-deps.sh --bench).
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.request
from collections import Counter
from pathlib import Path

import sim_instructions as si

POOL = "http://deb.debian.org/debian/pool/main/l/luajit/"

# parts of LuaJIT, by source file (functions of the interpreter, vm_x86.dasc, have no file)
PARTS = {
    "tables (lj_tab)": ("lj_tab.c", "lj_tab.h"),
    "JIT compiler": ("lj_snap.c", "lj_trace.c", "lj_record.c", "lj_opt_fold.c", "lj_opt_mem.c", "lj_opt_loop.c", "lj_opt_narrow.c",
                     "lj_opt_dce.c", "lj_opt_split.c", "lj_opt_sink.c", "lj_asm.c", "lj_asm_x86.h",
                     "lj_emit_x86.h", "lj_ir.c", "lj_ffrecord.c", "lj_crecord.c", "lj_mcode.c", "lj_iropt.h"),
    "allocator": ("lj_alloc.c",),
    "collector": ("lj_gc.c", "lj_gc.h"),
    "strings and formatting": ("lj_str.c", "lj_strfmt.c", "lj_strfmt_num.c", "lj_buf.c", "lj_buf.h",
                               "lj_strscan.c", "lib_string.c"),
    "metamethods (lj_meta)": ("lj_meta.c",),
}


def build_luajit(scratch: Path) -> Path:
    """The installed version's LuaJIT, built with its symbols (cached)."""
    version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "luajit"], capture_output=True,
                             text=True, check=True).stdout.strip()
    upstream = version.split(":")[-1].rsplit("-", 1)[0]
    src = scratch / f"luajit-{upstream}"
    binary = src / "src" / "luajit"
    if binary.exists():
        return binary
    scratch.mkdir(parents=True, exist_ok=True)
    tarball = scratch / f"luajit_{upstream}.orig.tar.gz"
    if not tarball.exists():
        urllib.request.urlretrieve(POOL + tarball.name, tarball)
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir()
    with tarfile.open(tarball) as tar:
        tar.extractall(src, filter="data")
    top = list(src.iterdir())
    if len(top) == 1 and top[0].is_dir():   # a tarball with one top folder
        for p in top[0].iterdir():
            p.rename(src / p.name)
        top[0].rmdir()
    with open(scratch / "luajit-build.log", "w") as log:
        done = subprocess.run(["make", "-j2", "PREFIX=/usr", "CCDEBUG=-g", "TARGET_STRIP=true"], cwd=src,
                              stdout=log, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise SystemExit(f"sim_where: building LuaJIT failed: {scratch / 'luajit-build.log'}")
    return binary


# a trace's exit to the interpreter: its snapshot restored onto the Lua stack
EXITS = ("lj_snap_restore", "snap_restoreval", "snap_restoredata", "lj_trace_exit", "lj_vm_exit_interp",
         "lj_vm_exit_handler")


def part_of(file: str, function: str) -> str:
    if function.split(".")[0] in EXITS:
        return "trace exits (snapshots restored)"
    if file == "???":
        if function == "???":
            return "JIT machine code"
        if re.match(r"lj_(BC|ff|fff|vm|cont)_?", function):
            return "interpreter and fast functions (vm_x86)"
    name = file.rsplit("/", 1)[-1]
    for part, files in PARTS.items():
        if name in files:
            return part
    return "the rest (C libraries, other LuaJIT files)"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=64)
    p.add_argument("--time", type=float, default=240)
    p.add_argument("--seed", type=int, default=1, help="the simulation's seed")
    p.add_argument("--jit-seed", type=int, default=1)
    p.add_argument("--net", default="lan", help="a network model of ./splaylab run --net (king: a grading run's delays)")
    p.add_argument("--assignment", type=Path, help="instead of the Chord: this assignment's first simulated grading run")
    p.add_argument("--top", type=int, default=25, help="how many functions to list")
    p.add_argument("--sandbox", type=Path, default=si.ROOT / "sandbox")
    p.add_argument("--scratch", type=Path, default=si.BASE.with_name("splaylab-sim-where"))
    args = p.parse_args()
    for tool in ("valgrind", "cg_annotate", "cc", "make", "setarch", "dpkg-query"):
        if not shutil.which(tool):
            print(f"sim_where: {tool} not found (scripts/install-deps.sh --bench)", file=sys.stderr)
            return 2
    luajit = build_luajit(args.scratch)
    shim = si.build_shim(args.scratch)
    run = si.write_job(args.scratch, args.nodes, args.time, args.seed, args.net, args.assignment)
    out = args.scratch / "cachegrind.out"
    r = si.measure(args.sandbox.resolve(), run, shim, args.jit_seed, cache=False, luajit=luajit, out_file=out)
    text = subprocess.run(["cg_annotate", "--auto=no", "--threshold=0", str(out)], capture_output=True,
                          text=True, check=True).stdout
    by_function: Counter[str] = Counter()
    by_part: Counter[str] = Counter()
    for m in re.finditer(r"^\s*([\d,]+) \([ \d.]+%\)\s+(\S+?):(\S+)\s*$", text, re.M):
        n = int(m.group(1).replace(",", ""))
        file, function = m.group(2), m.group(3)
        if file == "PROGRAM":
            continue
        by_function[f"{file.rsplit('/', 1)[-1]}:{function}"] += n
        by_part[part_of(file, function)] += n
    total = sum(by_part.values())
    print(f"{args.nodes} nodes, {args.time:g} virtual s, JIT seed {args.jit_seed}: {r['instructions']:,} instructions, "
          f"{r['events']:,} events ({r['instructions'] / r['events']:,.0f} per event), records {r['records']}")
    print("\nby part of LuaJIT:")
    for part, n in by_part.most_common():
        print(f"  {100 * n / total:5.1f} %  {part}")
    print(f"\nthe {args.top} costliest functions:")
    for name, n in by_function.most_common(args.top):
        print(f"  {100 * n / total:5.1f} %  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
