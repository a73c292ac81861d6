"""The massive-failure experiment of assignments/chord-churn (issue 5): Chord with successor
lists on 60 local nodes, half of which are killed at 90 s. From the recorded metrics, lookups
do not fail before, fail clearly right after, and stop failing again. Real local nodes
(./splaylab run --churn), ~3 minutes."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "assignments" / "chord-churn" / "check.py"

spec = importlib.util.spec_from_file_location("chord_churn_check", CHECK)
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)


def test_lookup_failures_rise_after_a_massive_failure_then_recover(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    proc = subprocess.run([sys.executable, str(CHECK), "--out", str(out)], capture_output=True, text=True,
                          timeout=280)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    records = [json.loads(line) for line in out.read_text().splitlines()]
    f = check.figures(records)
    bins, t_fail = f["bins"], f["t_fail"]
    assert 89 < t_fail < 92, proc.stdout                     # the scenario's `at 90s leave 50%`
    assert [b["population"] for b in bins if b["to"] <= t_fail][-1] == 60, proc.stdout
    assert bins[-1]["population"] == 30, proc.stdout

    before, n = check.rate(bins, 0, t_fail)
    assert n > 1000 and before <= check.BEFORE_MAX, proc.stdout
    just_after = [b["rate"] for b in bins if b["to"] > t_fail and b["from"] < t_fail + check.RISE_WINDOW]
    assert max(just_after) > check.RISE_MIN, proc.stdout
    last = bins[-1]["from"]
    after, n = check.rate(bins, last - check.RECOVERED_WINDOW, last)
    assert n >= 100 and after <= check.RECOVERED_MAX, proc.stdout
