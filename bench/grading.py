#!/usr/bin/env python3
"""Grading time per submission, for every assignment folder with an assignment.yaml.

    .venv/bin/python bench/grading.py [assignments/NAME ...]

Per assignment, on a fresh reference cache: the reference graded first (its runs, plus the
reference runs the checks compare with: what the first submission after a change costs), then
the reference again (a working submission: its own runs, the reference's from the cache), then
the starter. Prints wall seconds; asserts nothing about time.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "backend"))

from grading.grader import grade, load_assignment  # noqa: E402


def main(argv: list[str]) -> int:
    folders = [Path(a) for a in argv] or sorted(p.parent for p in (ROOT / "assignments").glob("*/assignment.yaml"))
    print(f"{'assignment':<14} {'runs':<50} {'cold':>7} {'working':>8} {'starter':>8} {'starter score':>14}")
    for folder in folders:
        a = load_assignment(folder)
        runs = ", ".join(f"{r.name} {r.nodes}n {r.time:g}s {r.mode}" for r in a.runs)
        with tempfile.TemporaryDirectory() as cache:
            t0 = time.monotonic()
            ref = grade(a, a.reference, cache_dir=Path(cache)).to_dict()
            cold = time.monotonic() - t0
            t0 = time.monotonic()
            grade(a, a.reference, cache_dir=Path(cache))
            working = time.monotonic() - t0
            t0 = time.monotonic()
            starter = grade(a, a.starter, cache_dir=Path(cache)).to_dict()
            warm = time.monotonic() - t0
        flag = "" if ref["score"] == 100 else f"  (reference scored {ref['score']})"
        print(f"{a.slug:<14} {runs:<50} {cold:>6.1f}s {working:>7.1f}s {warm:>7.1f}s {starter['score']:>14g}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
