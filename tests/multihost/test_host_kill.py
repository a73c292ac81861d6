"""A host killed outright is detected and its instances replaced under keep-population (issue 8):
a keep-population job of 6 positions + 2 spares fills 4 test hosts of 2 slots each; one host
that runs two positions and no spare loses its cable and then every process (kill -9: a power
cut, no FIN reaches the controller). The controller's sweep finds the daemon silent for
SPLAYLAB_DAEMON_DEAD_AFTER (6 s): its running positions become LOST ("daemon X unreachable for
N s", backend/daemons/services.py daemons_mark_unreachable), each gets a `fail` churn event,
and a spare on another host joins in its place, so the job keeps its 6 positions up until its
scenario ends."""
from __future__ import annotations

import re
import time

import pytest

from multihost_helpers import wait_daemon_states

pytestmark = pytest.mark.stack

POSITIONS = 6
SPARES = 2    # keep_population: ceil(0.25 x 6)
DURATION = 30

TICKER = """
require "splay.base"
events.run(function()
  print("up at node " .. job.position)
  while true do events.sleep(0.25) end
end)
"""

UNREACHABLE = re.compile(r"^daemon (\S+) unreachable for (\d+) s$")


def position_of(inst: dict) -> int:
    return inst["plays"] or inst["node"]


def test_a_host_killed_outright_is_detected_and_its_positions_replaced(mh_stack, hosts) -> None:
    four = hosts(4, max_instances=2)   # 8 slots for 8 nodes: two on every host
    by_daemon = {h.daemon_name: h for h in four}

    job = mh_stack.api("POST", "/api/jobs/", {"name": "host-kill", "nodes": POSITIONS, "duration": DURATION,
                                              "keep_population": True, "code": TICKER})
    assert job["nodes"] == POSITIONS + SPARES and job["churn"]["spares"] == SPARES, job
    job_id = job["id"]
    deadline = time.monotonic() + 60
    while True:
        job = mh_stack.api("GET", f"/api/jobs/{job_id}/")
        running = [i for i in job["instances"] if i["state"] == "RUNNING"]
        if len(running) == POSITIONS or job["state"] not in ("REGISTERING", "RUNNING") \
                or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert job["state"] == "RUNNING" and len(running) == POSITIONS, job
    assert sorted(i["node"] for i in running) == list(range(1, POSITIONS + 1)), job["instances"]
    spares = [i for i in job["instances"] if i["node"] > POSITIONS]
    assert len(spares) == SPARES and {i["state"] for i in spares} == {"RESERVED"}, job["instances"]

    # A host running positions and holding no spare (spares stay on other hosts).
    spare_hosts = {i["daemon"] for i in spares}
    victim = next(h for h in four if h.daemon_name not in spare_hosts
                  and any(i["daemon"] == h.daemon_name for i in running))
    doomed = sorted(i["node"] for i in running if i["daemon"] == victim.daemon_name)
    assert len(doomed) == 2 and len(doomed) <= SPARES, (victim.daemon_name, job["instances"])

    victim.link_down()
    victim.kill()          # power cut: the daemon and its nodes die, nothing reaches the controller
    t_kill = time.monotonic()
    assert victim.pids() == [] and not victim.daemon_alive()

    detected: dict[int, float] = {}
    while len(detected) < len(doomed) and time.monotonic() - t_kill < 40:
        job = mh_stack.api("GET", f"/api/jobs/{job_id}/")
        for i in job["instances"]:
            if i["node"] in doomed and i["state"] == "LOST" and i["node"] not in detected:
                detected[i["node"]] = time.monotonic() - t_kill
        time.sleep(0.1)
    assert sorted(detected) == doomed, job["instances"]
    print(f"dead host detected: its nodes LOST {min(detected.values()):.1f} s after the kill "
          f"(SPLAYLAB_DAEMON_DEAD_AFTER = 6 s, sweep every 1 s)")
    lost = {i["node"]: i for i in job["instances"] if i["node"] in doomed}
    print("lost:", "; ".join(f"node {n}: {i['exit_reason']}" for n, i in sorted(lost.items())))
    for node, inst in lost.items():
        m = UNREACHABLE.match(inst["exit_reason"])
        assert m and m.group(1) == victim.daemon_name and int(m.group(2)) >= 6, inst

    # Each lost position is taken over by a spare on another host.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        job = mh_stack.api("GET", f"/api/jobs/{job_id}/")
        takers = {i["plays"]: i for i in job["instances"] if i["plays"] and i["state"] == "RUNNING"}
        if sorted(takers) == doomed:
            break
        time.sleep(0.2)
    assert sorted(takers) == doomed, job["instances"]
    replaced_after = time.monotonic() - t_kill
    print(f"both positions running again on spares {replaced_after:.1f} s after the kill")
    for position, spare in takers.items():
        assert spare["node"] > POSITIONS and spare["daemon"] != victim.daemon_name, spare
        assert spare["daemon"] in by_daemon, spare
    up = {position_of(i) for i in job["instances"] if i["state"] == "RUNNING"}
    assert up == set(range(1, POSITIONS + 1)), job["instances"]          # population kept: 6 up

    # The churn record: for each lost position, a fail, then a spare's join in its place.
    events = mh_stack.api("GET", f"/api/jobs/{job_id}/churn/")["events"]
    for node in doomed:
        fail = [e for e in events if e["event"] == "fail" and e["node"] == node]
        assert len(fail) == 1, events
        assert "went down: daemon " + victim.daemon_name + " unreachable for" in fail[0]["text"], fail
        spare = takers[node]
        join = [e for e in events if e["event"] == "join" and e["node"] == spare["node"]]
        assert len(join) == 1 and join[0]["plays"] == node, events
        assert f"in place of node {node}" in join[0]["text"], join
        assert join[0]["id"] > fail[0]["id"] and join[0]["planned"] is None, (fail, join)

    # The population holds until the scenario ends.
    job = mh_stack.wait_job(job_id, {"ENDED", "FAILED", "KILLED"}, timeout=DURATION + 30)
    assert job["state"] == "ENDED", job
    assert job["reason"].startswith(f"ended; {len(doomed)} of {POSITIONS + SPARES} instances lost"), job
    states = {i["node"]: i["state"] for i in job["instances"]}
    assert all(states[n] == "LOST" for n in doomed), job["instances"]
    assert all(s == "ENDED" for n, s in states.items() if n not in doomed), job["instances"]
    replaced = {i["plays"]: i for i in job["instances"] if i["plays"]}
    assert all(replaced[n]["exit_reason"] == "the scenario ended" for n in doomed), job["instances"]
    wait_daemon_states(mh_stack, [victim.daemon_name], {"OFFLINE"}, timeout=5)
