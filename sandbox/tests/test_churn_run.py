"""`./splaylab run APP --churn FILE`: real LuaJIT nodes join and leave as a scenario says."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SANDBOX = Path(__file__).resolve().parents[1]
RUN_LOCAL = [sys.executable, str(SANDBOX / "run_local.py")]
APP = """require "splay.base"
events.run(function()
  log.info("up " .. job.position)
  while true do events.sleep(1) end
end)
"""
SCENARIO = """at 1s join 4
from 2s to 3s leave 2
at 3.5s set replacement ratio to 0%
at 4s join 2            # the two that left come back
at 5s leave 1 gracefully
at 6s stop
"""


def run(tmp: Path, scenario: str, *extra: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    (tmp / "app.lua").write_text(APP)
    (tmp / "s.churn").write_text(scenario)
    out = tmp / "out.jsonl"
    proc = subprocess.run([*RUN_LOCAL, str(tmp / "app.lua"), "--churn", str(tmp / "s.churn"), "--time", "30",
                           "--quiet", "--out", str(out), *extra], capture_output=True, text=True, timeout=120)
    records = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return proc, records


def test_nodes_join_and_leave_as_the_scenario_plans(tmp_path: Path) -> None:
    sys.path.insert(0, str(SANDBOX))
    import churn
    plan = churn.schedule(churn.parse_script(SCENARIO), seed=1)
    proc, records = run(tmp_path, SCENARIO)
    assert proc.returncode == 0, proc.stderr
    done = [(r["node"], r["event"], r["planned"], r.get("graceful", False)) for r in records if r["kind"] == "churn"]
    assert done == [(e.node, e.kind, e.t, e.graceful) for e in plan.events if e.kind in ("join", "leave")]
    # every join is a fresh process of that position: it says so once per session
    ups = [r["node"] for r in records if r["kind"] == "log" and r["text"].startswith("up ")]
    assert sorted(ups) == sorted(e.node for e in plan.events if e.kind == "join")
    assert len(set(ups)) == 4  # the replacement ratio 0 % revived nodes instead of new ones
    # a join happens when planned (the run ends at the scenario's stop, not --time)
    for r in records:
        if r["kind"] == "churn":
            assert r["t"] >= r["planned"]
    exits = [r["text"] for r in records if r["kind"] == "exit"]
    assert exits.count("left (churn: failure)") == 2 and exits.count("left (churn: graceful)") == 1
    assert exits.count("stopped: the scenario's stop at 6 s") == 3
    assert max(r["t"] for r in records) < 12


def test_a_bad_scenario_is_refused_with_its_line_and_column(tmp_path: Path) -> None:
    proc, records = run(tmp_path, "at 1s join 2\nat 2 leave 1\n")
    assert proc.returncode == 2 and records == []
    assert proc.stderr.strip().endswith("s.churn:2:6: the instant: expected a time unit (s, m, h, d) after 2")


def test_nodes_must_match_the_scenario(tmp_path: Path) -> None:
    proc, _ = run(tmp_path, "at 1s join 2\n", "--nodes", "5")
    assert proc.returncode == 2
    assert "uses 2 nodes: leave out --nodes, or give --nodes 2" in proc.stderr
