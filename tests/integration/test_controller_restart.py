"""A controller restart mid-job is reconciled (SPLAY section 3.1 sessions; docs/architecture.md,
"Sessions"): the web process that holds the daemons' sockets is killed outright (SIGKILL: no
disconnect recorded, the last second of acks not saved) and started again 5 s later. The
daemons keep their nodes running and their log lines in their journals, reconnect, resume
their sessions and resend what the controller had not processed; the controller applies each
frame once. The job ends as if nothing happened: every instance ENDED, every line stored once."""
from __future__ import annotations

from pathlib import Path

import pytest

from stack_helpers import running_stack

pytestmark = pytest.mark.stack

COUNTER = """
require "splay.base"
events.run(function()
  for i = 1, 300 do print("tick " .. i); events.sleep(0.05) end
end)
"""


def test_jobs_continue_and_state_converges_across_a_controller_crash(tmp_path: Path) -> None:
    with running_stack(tmp_path, 8772, "splaylab_it_restart", 10, daemons=2) as s:
        before = {d["name"]: d for d in s.api("GET", "/api/daemons/", token=s.teacher_token)}
        job = s.api("POST", "/api/jobs/", {"code": COUNTER, "nodes": 4, "duration": 40})
        s.wait_job(job["id"], {"RUNNING"}, timeout=30)
        s.restart("web", down_for=5)  # nodes are at about tick 40-60 of 300
        done = s.wait_job(job["id"], {"ENDED", "FAILED", "KILLED"}, timeout=60)
        assert done["state"] == "ENDED", done
        assert sorted(i["state"] for i in done["instances"]) == ["ENDED"] * 4, done["instances"]
        after = {d["name"]: d for d in s.api("GET", "/api/daemons/", token=s.teacher_token)}
        assert all(d["state"] == "ONLINE" for d in after.values()), after
        for node in range(1, 5):
            lines = s.logs(job["id"], node)
            seqs = [ln["seq"] for ln in lines]
            ticks = [ln["text"] for ln in lines if ln["text"].startswith("tick ")]
            assert ticks == [f"tick {i}" for i in range(1, 301)], (node, len(ticks))
            assert seqs == list(range(1, len(seqs) + 1)), node  # nothing lost, nothing doubled
        assert set(before) == set(after)
        web_log = (tmp_path / "log" / "web.log").read_text()
        for name in before:  # the same sessions went on: no instance was reset
            assert f"daemon {name} resumed session" in web_log
