"""A node that prints in a loop, under `./splaylab run` live and `--sim`: what the output limits
(docs/architecture.md "Output limits") leave of it.

`.venv/bin/python bench/output_flood.py [--nodes 1] [--time 10] [--every 1000]` runs
sandbox/run_local.py on an app that prints without end, sleeping 1 ms every EVERY lines (about
EVERY x 1,000 lines a second per node, virtual in a simulation), and prints for each mode: wall
time, bytes written to --out and to the console, lines kept and lines the limits dropped (from
the runner's own limit records). Asserts nothing. Before the limits a 2 s simulation of this
app wrote 283 MB to --out and 173 MB to the console in 34 s (see bench/README.md).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN_LOCAL = ROOT / "sandbox" / "run_local.py"
APP = """require "splay.base"
events.run(function()
  local i = 0
  while true do
    i = i + 1
    print("flooding line number " .. i .. " of a node that prints in a loop")
    if i %% %d == 0 then events.sleep(0.001) end
  end
end)
"""


def measure(mode: list[str], args: argparse.Namespace, tmp: Path) -> str:
    app = tmp / "flood.lua"
    app.write_text(APP % args.every)
    out, console = tmp / "out.jsonl", tmp / "console.txt"
    started = time.monotonic()
    with console.open("wb") as sink:
        subprocess.run([sys.executable, str(RUN_LOCAL), str(app), "--nodes", str(args.nodes), "--time",
                        str(args.time), "--out", str(out), *mode], stdout=sink, stderr=subprocess.DEVNULL,
                       timeout=args.time * 20 + 120)
    wall = time.monotonic() - started
    kept = dropped = 0
    with out.open() as f:
        for line in f:
            r = json.loads(line)
            if r.get("limit"):
                dropped += int(r.get("dropped") or 0)
            elif r.get("kind") == "log":
                kept += 1
    return (f"{'sim' if mode else 'live':4}  {wall:6.1f} s wall  --out {out.stat().st_size / 1e6:8.2f} MB  "
            f"console {console.stat().st_size / 1e6:8.2f} MB  lines kept {kept:,}, dropped by the rate {dropped:,}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nodes", type=int, default=1)
    p.add_argument("--time", type=float, default=10)
    p.add_argument("--every", type=int, default=1000, help="lines between two 1 ms sleeps")
    args = p.parse_args()
    print(f"flooding app, {args.nodes} node(s), {args.time:g} s, a 1 ms sleep every {args.every} lines")
    with tempfile.TemporaryDirectory(prefix="splaylab-flood-") as tmp:
        for mode in ([], ["--sim"]):
            print(measure(mode, args, Path(tmp)), flush=True)


if __name__ == "__main__":
    main()
