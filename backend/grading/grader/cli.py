"""./splaylab grade assignments/NAME SUBMISSION.lua [--json] [--live] [--sim-transport fast|sockets]
(docs/grading.md)."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import SpecError, grade, load_assignment
from .runner import DEFAULT_CACHE


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="splaylab grade", description="grade a submission locally, "
                                "as the service does (docs/grading.md)")
    p.add_argument("assignment", type=Path, help="the assignment's folder, e.g. assignments/chord")
    p.add_argument("submission", type=Path, help="the student's app.lua")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--live", action="store_true", help="run every run live instead of simulated")
    p.add_argument("--sim-transport", choices=("fast", "sockets"), default=None,
                   help="simulated runs' rpc/urpc messages: fast (copies, the default) or sockets (encoded, "
                        "as live); docs/simulation.md")
    p.add_argument("--no-cache", action="store_true", help="run the reference again instead of reading "
                   f"its cached records ({DEFAULT_CACHE})")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        assignment = load_assignment(args.assignment)
    except SpecError as e:
        print(f"splaylab grade: {e}", file=sys.stderr)
        return 2
    try:
        source = args.submission.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        print(f"splaylab grade: cannot read {args.submission}: {e}", file=sys.stderr)
        return 2
    started = time.monotonic()

    def on_run(who: str, run: str) -> None:
        if not args.json:
            print(f"  running the {who} on {run!r}...", file=sys.stderr, flush=True)

    report = grade(assignment, source, live=args.live, cache_dir=None if args.no_cache else DEFAULT_CACHE,
                   on_run=on_run, transport=args.sim_transport)
    d = report.to_dict()
    d["wall_s"] = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps(d))
        return 0
    print(f"{assignment.title}: {d['score']:g} / 100   ({args.submission}, {d['wall_s']:g} s)")
    if d["compile_error"]:
        print(f"  does not compile: {d['compile_error']}")
    for c in d["checks"]:
        mark = "PASS" if c["passed"] else "FAIL"
        hidden = " (hidden from students)" if c["hidden"] else ""
        print(f"  {mark} {c['points']:6.1f}/{c['max_points']:<5g} {c['name']}{hidden}\n        {c['message']}")
    for r in d["runs"]:
        if r["failure"]:
            print(f"  run {r['name']}: {r['failure']}")
        for warning in r.get("warnings", []):
            print(f"  run {r['name']}: {warning}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
