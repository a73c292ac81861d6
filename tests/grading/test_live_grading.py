"""Live grading is repeatable within the documented tolerance (docs/grading.md, "Live grading":
two gradings of one submission within 5 points): the gossip reference, graded twice on real
nodes (its static run only: 100 LuaJIT processes for 100 s, the reference's own live run beside
each), the two gradings side by side. ~4 minutes."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from grading.grader import grade, load_assignment

FOLDER = Path(__file__).resolve().parents[2] / "assignments" / "gossip"
TOLERANCE = 5   # points, docs/grading.md


def test_two_live_gradings_of_one_submission_agree_within_the_tolerance(tmp_path: Path) -> None:
    a = load_assignment(FOLDER)
    static = replace(a, runs=[a.run("static")], checks=[c for c in a.checks if c.run == "static"])

    def live(_: int) -> dict:
        return grade(static, static.reference, live=True, cache_dir=tmp_path).to_dict()

    with ThreadPoolExecutor(max_workers=2) as pool:
        first, second = pool.map(live, range(2))
    for report in (first, second):
        (run,) = report["runs"]
        assert run["mode"] == "live" and run["failure"] is None and run["reference_cached"] is False
        assert report["score"] > 50, report["checks"]   # a working solution, graded on real nodes
    assert abs(first["score"] - second["score"]) <= TOLERANCE, _side_by_side(first, second)
    assert not any(tmp_path.iterdir()), "a live reference run must never be cached"


def _side_by_side(first: dict, second: dict) -> str:
    """Each check's points and message in both gradings, and the machine's load: a text, which
    pytest prints whole (a dict's repr is cut at ~240 characters, the failing check with it)."""
    lines = [f"scores {first['score']:.1f} and {second['score']:.1f}; load average {os.getloadavg()}"]
    for a, b in zip(first["checks"], second["checks"]):
        lines += [f"{a['check']}: {a['points']:g} / {b['points']:g} of {a['max_points']:g}",
                  f"  1: {a['message']}", f"  2: {b['message']}"]
    return "\n".join(lines)
