"""Every assignment's reference, starter and variants score the same on the simulator's two
transports (issue 21, docs/simulation.md "The message fast path"): rpc/urpc messages as copies
(fast, the default) or encoded over the simulated sockets (sockets, as live). Same score, same
points and verdict per check."""
from __future__ import annotations

from pathlib import Path

import pytest

from grading.grader import grade

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENTS = ("chord", "chord-ft", "cyclon", "gossip")
PROGRAMS = [(name, path) for name in ASSIGNMENTS
            for path in [ROOT / "assignments" / name / "reference" / "app.lua",
                         ROOT / "assignments" / name / "starter" / "app.lua",
                         *sorted((ROOT / "assignments" / name / "variants").glob("*.lua"))]]


@pytest.fixture(scope="module")
def assignments():
    from grading.grader import load_assignment
    loaded = {}

    def get(name: str):
        if name not in loaded:
            loaded[name] = load_assignment(ROOT / "assignments" / name)
        return loaded[name]
    return get


def outcome(report: dict) -> tuple[float, list[tuple[str, float, bool]]]:
    return report["score"], [(c["name"], c["points"], c["passed"]) for c in report["checks"]]


@pytest.mark.parametrize("name,path", PROGRAMS, ids=[f"{n}/{p.parent.name}/{p.stem}" for n, p in PROGRAMS])
def test_the_program_scores_the_same_on_both_transports(name: str, path: Path, assignments, cache) -> None:
    source = path.read_text()
    fast = grade(assignments(name), source, cache_dir=cache, transport="fast").to_dict()
    sockets = grade(assignments(name), source, cache_dir=cache, transport="sockets").to_dict()
    assert not [r for r in fast["runs"] + sockets["runs"] if r.get("failure")]
    assert outcome(fast) == outcome(sockets)
