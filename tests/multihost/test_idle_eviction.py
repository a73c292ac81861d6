"""An idle-only daemon evicts within its bound when activity is simulated (issue 8, availability;
daemon/README.md "Availability"): a test host with `availability = "idle"` watches a terminal
of its own (`idle_ttys` = a temporary directory holding one file, whose atime the test moves
to "now" as the owner's typing would). Its job's instances are evicted (SIGTERM, SIGKILL
`evict_grace_s` later: node 1's on_leave never returns) and reported LOST "evicted: <why>"
within availability.eviction_bound (check period + grace + 1 s); the controller shows the
daemon unavailable with its reason and schedules nothing on it; once the terminal is idle again
the daemon offers itself again and takes a job."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from multihost_helpers import ROOT

sys.path.insert(0, str(ROOT / "daemon"))
from splayd.availability import eviction_bound  # noqa: E402
from splayd.config import load_config  # noqa: E402

pytestmark = pytest.mark.stack

CHECK_S = 1.0
GRACE_S = 2.0
IDLE_AFTER_S = 5.0
SLACK_S = 2.0

APP = """
require "splay.base"
events.run(function()
  if job.position == 1 then
    events.on_leave(function() while true do events.sleep(0.05) end end)  -- needs the SIGKILL
  else
    events.on_leave(function() print("bye") end)
  end
  print("up " .. job.position)
  while true do events.sleep(0.1) end
end)
"""


def daemon_row(stack, name: str) -> dict:
    return next(d for d in stack.api("GET", "/api/daemons/", token=stack.teacher_token) if d["name"] == name)


def wait_for(check, timeout: float, what: str, poll: float = 0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not within {timeout} s")
        time.sleep(poll)


def test_an_idle_only_daemon_evicts_within_its_bound_and_comes_back(mh_stack, hosts, tmp_path: Path) -> None:
    ttys, power = tmp_path / "ttys", tmp_path / "power_supply"
    ttys.mkdir()
    power.mkdir()                           # no supply at all: a desktop, on mains
    tty = ttys / "pts7"
    tty.write_text("")
    long_ago = time.time() - 3600
    os.utime(tty, (long_ago, long_ago))     # nobody typed for an hour

    (host,) = hosts(1, max_instances=2, config={
        "availability": "idle", "idle_ttys": [str(ttys)], "idle_after_s": IDLE_AFTER_S,
        "availability_check_s": CHECK_S, "evict_grace_s": GRACE_S,
        # The test machine's own load (other suites, this one's nodes) must not decide: the rule
        # is 1-min load average minus this daemon's running instances above max_load.
        "max_load": 1000.0, "logind": False, "power_supply_dir": str(power)})
    bound = eviction_bound(load_config(host.config))   # the daemon's own documented bound
    assert bound == CHECK_S + GRACE_S + 1.0
    row = daemon_row(mh_stack, host.daemon_name)
    assert row["availability"] == "idle" and row["available"] is True, row

    job = mh_stack.api("POST", "/api/jobs/", {"name": "idle-eviction", "nodes": 2, "duration": 120, "code": APP})
    job_id = job["id"]
    job = wait_for(lambda: (j := mh_stack.api("GET", f"/api/jobs/{job_id}/"))["state"] != "REGISTERING"
                   and {i["state"] for i in j["instances"]} == {"RUNNING"} and j, 60, "job running")
    assert job["state"] == "RUNNING" and {i["daemon"] for i in job["instances"]} == {host.daemon_name}, job
    time.sleep(1.0)                         # both nodes past their first lines

    # The owner types: the terminal's atime moves to now (mtime, i.e. output, stays old).
    t_active = time.time()
    os.utime(tty, (t_active, long_ago))
    t0 = time.monotonic()

    def evicted():
        j = mh_stack.api("GET", f"/api/jobs/{job_id}/")
        return j if all(i["state"] == "LOST" for i in j["instances"]) else None

    job = wait_for(evicted, bound + SLACK_S + 5, "every instance LOST")
    took = time.monotonic() - t0
    print(f"evicted: every instance LOST {took:.2f} s after the simulated keystroke "
          f"(eviction bound {bound:g} s)")
    assert took <= bound + SLACK_S, (took, bound)
    for inst in job["instances"]:
        assert inst["exit_reason"].startswith("evicted: owner active: terminal "), inst
        assert f"{tty} used" in inst["exit_reason"] and "(idle_after_s = 5)" in inst["exit_reason"], inst
    job = mh_stack.wait_job(job_id, {"ENDED", "FAILED", "KILLED"}, timeout=10)
    assert job["state"] == "FAILED" and job["reason"].startswith("all 2 instances lost; node 1: evicted: "), job

    row = daemon_row(mh_stack, host.daemon_name)
    assert row["state"] == "ONLINE" and row["available"] is False, row
    assert row["unavailable_reason"].startswith(f"owner active: terminal {tty} used "), row
    assert row["active_instances"] == 0 and row["running_jobs"] == [], row

    # Nothing new is scheduled on it while the owner is there.
    other = mh_stack.api("POST", "/api/jobs/", {"name": "while-busy", "nodes": 1, "duration": 10, "code": APP})
    other = mh_stack.wait_job(other["id"], {"RUNNING", "ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=30)
    assert other["state"] == "NO_RESOURCES", other
    assert "1 daemon excluded: unavailable by their owners' policy" in other["reason"], other

    # The owner leaves: the terminal idle again, the daemon offers itself and takes a job.
    os.utime(tty, (long_ago, long_ago))
    t1 = time.monotonic()
    row = wait_for(lambda: (r := daemon_row(mh_stack, host.daemon_name))["available"] and r,
                   CHECK_S + 5, "available again")
    print(f"available again {time.monotonic() - t1:.2f} s after the terminal went idle")
    assert row["unavailable_reason"] == "" and row["state"] == "ONLINE", row
    again = mh_stack.api("POST", "/api/jobs/", {"name": "after-idle", "nodes": 1, "duration": 10, "code": APP})
    again = mh_stack.wait_job(again["id"], {"RUNNING", "ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=30)
    assert again["state"] in ("RUNNING", "ENDED"), again
    assert [i["daemon"] for i in again["instances"]] == [host.daemon_name], again
    mh_stack.api("POST", f"/api/jobs/{again['id']}/stop/")
