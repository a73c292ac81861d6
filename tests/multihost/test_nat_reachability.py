"""A volunteer behind a home router (issue 24): two public test hosts and one behind a router of
its own (multihost_helpers.NatHost: masquerading, no port forwarding). The controller records the
router's address for it (the peer it sees), the daemons probe each other when they connect, and
the dashboard's API says who reaches whom: the NATed daemon reaches out, nobody reaches it, not
even its own nodes. Jobs are then kept off it, and one too large for the public hosts alone is
NO_RESOURCES saying why."""
from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.stack

APP = 'print("up " .. job.position)'


def _pairs(mh_stack, names: set[str], want: int, timeout: float = 20) -> dict[tuple[str, str], dict]:
    """The measured pairs among `names`, once there are `want` of them."""
    deadline = time.monotonic() + timeout
    rows: dict[tuple[str, str], dict] = {}
    while time.monotonic() < deadline:
        rows = {(r["src_name"], r["dst_name"]): r
                for r in mh_stack.api("GET", "/api/daemons/reachability/", token=mh_stack.teacher_token)
                if r["src_name"] in names and r["dst_name"] in names}
        if len(rows) >= want:
            return rows
        time.sleep(0.3)
    raise AssertionError(f"{len(rows)} of {want} pairs measured within {timeout} s: {sorted(rows)}")


def test_a_daemon_behind_a_router_is_measured_and_jobs_are_kept_off_it(mh_stack, hosts) -> None:
    public = hosts(2, max_instances=2)
    [nat] = hosts(1, max_instances=4, nat=True)
    daemons = {d["name"]: d for d in mh_stack.api("GET", "/api/daemons/", token=mh_stack.teacher_token)}
    assert nat.ip == "192.168.3.2" and daemons[nat.daemon_name]["ip"] == nat.public_ip  # what it claims is not seen

    p1, p2, n = public[0].daemon_name, public[1].daemon_name, nat.daemon_name
    rows = _pairs(mh_stack, {p1, p2, n}, 9)
    status = {pair: r["status"] for pair, r in rows.items()}
    assert status == {(p1, p1): "direct", (p1, p2): "direct", (p2, p1): "direct", (p2, p2): "direct",
                      (n, p1): "direct", (n, p2): "direct",  # out through the router: fine
                      (p1, n): "none", (p2, n): "none",  # in: dropped by the router
                      (n, n): "none"}  # its own address is the router's, which forwards nothing
    assert rows[(p1, n)]["error"] == "TCP: no answer within 2 s"
    assert rows[(p1, p2)]["udp"] and rows[(n, p1)]["udp"]

    job = mh_stack.api("POST", "/api/jobs/", {"name": "nat-4", "nodes": 4, "duration": 20, "code": APP})
    job = mh_stack.wait_job(job["id"], {"ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=60)
    assert job["state"] == "ENDED", job
    assert sorted(i["daemon"] for i in job["instances"]) == sorted([p1, p1, p2, p2])

    job = mh_stack.api("POST", "/api/jobs/", {"name": "nat-5", "nodes": 5, "duration": 20, "code": APP})
    job = mh_stack.wait_job(job["id"], {"ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=60)
    assert (job["state"], job["reason"]) == ("NO_RESOURCES", (
        "job needs 5 instances, only 4 free slots on 2 online daemons (1 daemon excluded: "
        "their nodes cannot reach each other at their address (behind a router?))")), job
