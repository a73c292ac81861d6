#!/usr/bin/env python3
"""What one live splay.rpc call on a kept connection executes in each process, in instructions
counted by valgrind (cachegrind, the JIT's machine code included; the kernel's work is not):
the client's and the server's share of a call, where wall time and CPU seconds on this VM move by
a quarter from run to run.

    .venv/bin/python bench/live_rpc_instructions.py [--seed 1] [--tree DIR [--tree DIR ...]]

Runs the local runner's two nodes (node 2 calls node 1's echo, bench/sandbox.py's kept rounds)
twice, with 2,000 and 4,000 calls, each node's luajit under cachegrind, and prints the difference
per call: start-up and the end cancel out. --tree names checkouts to compare (default: this one);
they alternate. The JIT's random draws are fixed with bench/native/jit_seed.c (as
bench/sim_instructions.py does); what is left moving is timing: whether a reply is already there
when the client looks (a wait and a wake-up less), some 5 % from run to run. Needs valgrind and
a C compiler (scripts/install-deps.sh --bench). ~30 s per tree.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from sim_instructions import build_shim  # noqa: E402

CALLS = (2000, 4000)

APP = """require "splay.base"
local rpc = require "splay.rpc"
function echo(x) return x end
function done() events.thread(function() events.sleep(0.2); events.exit() end) end
events.run(function()
  rpc.server(job.me.port)
  if job.position == 2 then
    events.sleep(0.5)
    for _ = 1, 600 do assert(rpc.call(job.nodes[1], {"echo", "warm"})) end
    for _ = 1, CALLS do assert(rpc.call(job.nodes[1], {"echo", "x"})) end
    rpc.call(job.nodes[1], {"done"})
    events.exit()
  else
    events.sleep(3600)
  end
end)
"""

# The runner starts `luajit` from PATH: this one runs the real luajit under cachegrind, its
# output named by the node's position (read from the job.json in its working directory).
WRAPPER = """#!/bin/sh
pos=$(grep -o '"position": *[0-9]*' job.json | grep -o '[0-9]*$')
export LD_PRELOAD={shim} JIT_SEED={seed}
exec valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file={out}/node$pos.out \\
  {luajit} "$@" 2>/dev/null
"""


def count(tree: Path, calls: int, folder: Path, shim: Path, seed: int) -> dict[int, int]:
    """Instructions of each node (position -> count) for one run of `calls` calls."""
    out = folder / f"out-{calls}"
    out.mkdir()
    bin_dir = folder / f"bin-{calls}"
    bin_dir.mkdir()
    wrapper = bin_dir / "luajit"
    wrapper.write_text(WRAPPER.format(shim=shim, seed=seed, out=out, luajit=shutil.which("luajit")))
    wrapper.chmod(0o755)
    app = folder / f"app-{calls}.lua"
    app.write_text(APP.replace("CALLS", str(calls)))
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "LANG": "C.UTF-8"}
    subprocess.run([sys.executable, str(tree / "sandbox" / "run_local.py"), str(app), "--nodes", "2",
                    "--time", "600", "--quiet"], check=True, env=env, stdout=subprocess.DEVNULL)
    figures = {}
    for pos in (1, 2):
        text = (out / f"node{pos}.out").read_text()
        figures[pos] = int(re.search(r"^summary: (\d+)", text, re.M).group(1))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1, help="the JIT's draws (bench/native/jit_seed.c)")
    parser.add_argument("--tree", action="append", type=Path, help="a checkout to measure (repeatable)")
    args = parser.parse_args()
    for tool in ("valgrind", "cc", "luajit"):
        if not shutil.which(tool):
            print(f"live_rpc_instructions: {tool} not found (scripts/install-deps.sh --bench)", file=sys.stderr)
            return 2
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    print(f"splay.rpc on a kept connection, live (2 nodes, local runner), JIT seed {args.seed}: "
          f"instructions per call, from runs of {CALLS[0]:,} and {CALLS[1]:,} calls")
    with tempfile.TemporaryDirectory(prefix="live-rpc-") as tmp:
        shim = build_shim(Path(tmp))
        for i, tree in enumerate(trees):
            folder = Path(tmp) / f"tree{i}"
            folder.mkdir()
            few, many = (count(tree, calls, folder, shim, args.seed) for calls in CALLS)
            per_call = {pos: (many[pos] - few[pos]) / (CALLS[1] - CALLS[0]) for pos in (1, 2)}
            print(f"  {tree}: client {per_call[2]:,.0f}, server {per_call[1]:,.0f} instructions per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
