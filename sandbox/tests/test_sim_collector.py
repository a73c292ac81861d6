"""The collector's garbage budget (splaylab.sim.collector, docs/simulation.md) changes when the
simulator collects, never what a run does: the same run with no budget (a cycle at 150 % of what
the last one kept) and with a large one (up to 1000 %) gives the same records, in the same order."""
from __future__ import annotations

import sys
from pathlib import Path

SANDBOX = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SANDBOX))

import simulate  # noqa: E402


def records(budget_mb: int, tmp_path: Path) -> list[tuple[int, float, str, str]]:
    got: list[tuple[int, float, str, str]] = []
    job = simulate.SimJob(app=SANDBOX / "apps" / "chord.lua", nodes=40, time=60, seed=5, gc_budget_mb=budget_mb)
    result = simulate.simulate(job, lambda k, t, level, text: got.append((k, t, level, text)),
                               workdir=tmp_path / f"budget-{budget_mb}")
    assert result.code == 0, result.stderr
    return got


def test_the_collectors_budget_changes_no_record(tmp_path: Path) -> None:
    none, large = records(0, tmp_path), records(1024, tmp_path)
    assert sum(1 for r in none if r[2] == "metric" and "lookup_latency" in r[3]) == 200
    assert none == large
