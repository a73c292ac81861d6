"""Churn through the whole service (docs/churn.md, "On the service"): `./splaylab submit --churn`
→ the API schedules the scenario → each daemon runs its nodes' joins and leaves against its own
clock → the controller records them (GET /api/jobs/<id>/churn/) and `--follow` prints them;
keep-population spares replace a node that crashes. Real web, Celery, two daemons, luajit."""
from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.stack

TICKER = """
require "splay.base"
events.run(function()
  print("up at position " .. job.position)
  while true do events.sleep(0.25) end
end)
"""

SCRIPT = """# three nodes, one of them fails at 3 s, a fresh one (node 4) comes at 5 s
at 1s join 3
at 3s leave 1
at 5s join 1
at 8s stop
"""


def test_a_submitted_scenario_starts_and_kills_nodes_on_time(stack, tmp_path: Path) -> None:
    app, script = tmp_path / "ticker.lua", tmp_path / "small.churn"
    app.write_text(TICKER)
    script.write_text(SCRIPT)

    result = stack.cli("submit", str(app), "--churn", str(script), "--follow")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 nodes for 8 s" in result.stderr and "churn small.churn" in result.stderr
    job_id = int(result.stderr.split("job ", 1)[1].split(" ", 1)[0])
    churn = stack.api("GET", f"/api/jobs/{job_id}/churn/")
    assert churn["planned"]["population"] == [[1, 3], [3, 2], [5, 3]]
    events = [(e["event"], e["planned"]) for e in churn["events"]]
    assert sorted(events) == sorted([("join", 1.0)] * 3 + [("leave", 3.0), ("join", 5.0)]), churn["events"]
    for e in churn["events"]:  # each on its daemon's clock, against the plan (the p99 goal is 100 ms)
        assert abs(e["t"] - e["planned"]) < 0.5, e
    assert result.stdout.count("up at position") == 4  # three joins, then one more
    assert result.stdout.count("churn ") == 5
    job = stack.api("GET", f"/api/jobs/{job_id}/")
    assert job["state"] == "ENDED" and job["churn"]["epoch"] is not None
    assert sorted(i["exit_reason"] for i in job["instances"]).count("the scenario ended") >= 2


CRASHER = """
require "splay.base"
events.run(function()
  print("up at position " .. job.position)
  if job.position == 2 then events.sleep(1.5); error("node 2 gives up") end
  while true do events.sleep(0.25) end
end)
"""


def test_keep_population_replaces_a_node_that_crashes(stack, tmp_path: Path) -> None:
    app = tmp_path / "crasher.lua"
    app.write_text(CRASHER)

    result = stack.cli("submit", str(app), "--nodes", "3", "--time", "8", "--keep-population", "--follow")

    job_id = int(result.stderr.split("job ", 1)[1].split(" ", 1)[0])
    job = stack.api("GET", f"/api/jobs/{job_id}/")
    assert job["churn"]["spares"] == 1 and job["nodes"] == 4, job
    by_node = {i["node"]: i for i in job["instances"]}
    assert by_node[2]["state"] == "FAILED" and "node 2 gives up" in by_node[2]["exit_reason"]
    assert by_node[4]["plays"] == 2, by_node          # the spare took node 2's place...
    events = stack.api("GET", f"/api/jobs/{job_id}/churn/")["events"]
    kinds = [(e["node"], e["event"]) for e in events]
    assert (2, "fail") in kinds and (4, "join") in kinds, events
    fail_t = next(e["t"] for e in events if e["event"] == "fail")
    join_t = next(e["t"] for e in events if e["node"] == 4)
    assert 0 < join_t - fail_t < 3, events            # ...within seconds
    assert "node 4 (playing node 2) joined in place of node 2" in result.stdout
    assert result.stdout.count("up at position 4") == 1
    assert job["state"] == "ENDED" and "1 of 4 instances failed" in job["reason"], job
