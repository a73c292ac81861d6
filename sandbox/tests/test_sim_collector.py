"""The collector's garbage budget (splaylab.sim.collector, docs/simulation.md) changes when the
simulator collects, never what a run does: the same run with no budget (a cycle at 140 % of what
the last one kept) and with a large one (up to 1000 %) gives the same records, in the same order.
A JSON text a node encoded is compared as what it says: the order of its keys may follow the
collector (LuaJIT's string table; docs/simulation.md "The collector's budget"), as it may
follow the run's paths, while a rerun of one run stays byte-identical (test_sim.py)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

SANDBOX = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SANDBOX))

import simulate  # noqa: E402


def said(text: str) -> object:
    """A record's text: a JSON text as its value (keys in any order), else the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def records(budget_mb: int, tmp_path: Path) -> list[tuple[int, float, str, object]]:
    got: list[tuple[int, float, str, object]] = []
    job = simulate.SimJob(app=SANDBOX / "apps" / "chord.lua", nodes=40, time=60, seed=5, gc_budget_mb=budget_mb)
    result = simulate.simulate(job, lambda k, t, level, text: got.append((k, t, level, said(text))),
                               workdir=tmp_path / f"budget-{budget_mb}")
    assert result.code == 0, result.stderr
    return got


def test_the_collectors_budget_changes_no_record(tmp_path: Path) -> None:
    none, large = records(0, tmp_path), records(1024, tmp_path)
    assert sum(1 for r in none if r[2] == "metric" and isinstance(r[3], dict) and r[3]["name"] == "lookup_latency") == 200
    assert none == large
