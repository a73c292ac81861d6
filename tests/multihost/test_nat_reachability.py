"""A volunteer behind a home router (issue 24): two public test hosts and one behind a router of
its own (multihost_helpers.NatHost: masquerading, no port forwarding). The controller records the
router's address for it (the peer it sees), the daemons probe each other when they connect, and
the dashboard's API says who reaches whom: the NATed daemon reaches out, nobody reaches it, not
even its own nodes at the router's address; the API's `via` says how each pair is reached all
the same (loopback for its own nodes, the relay between it and the others). Its runtime sends
its own nodes' traffic over 127.0.0.1 (the same-machine shortcut, protocol 2), so it may hold
a whole job, whose nodes all reach each other. (Jobs spanning it and the public hosts:
test_nat_relay.py; NO_RESOURCES naming the pairs when there is no relay: backend
jobs/tests/test_placement_reach.py.)"""
from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.stack

# Every node serves rpc, calls every other node (TCP) and logs who answered from where.
MESH_APP = """
require "splay.base"
local rpc = require "splay.rpc"
function hello() return job.position, job.me.ip end
rpc.server(job.me.port)
events.run(function()
  events.sleep(1)
  for i, n in ipairs(job.nodes) do
    if i ~= job.position then
      local pos, ip
      for _ = 1, 10 do
        pos, ip = rpc.call(n, {"hello"}, 3)
        if pos then break end
        events.sleep(0.5)
      end
      print(pos and ("reply from " .. pos .. " " .. ip) or ("no answer from " .. i .. ": " .. tostring(ip)))
    end
  end
  events.sleep(2)
  events.exit()
end)
"""


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


def test_a_daemon_behind_a_router_is_measured_and_the_dashboard_says_how_it_is_reached(mh_stack, hosts) -> None:
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

    # the dashboard's reading: its own nodes talk over loopback, the others through the relay
    # (once the daemons' heartbeats said their relay links are up)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and _pairs(mh_stack, {p1, p2, n}, 9)[(p1, n)]["via"] != "relay":
        time.sleep(0.3)
    via = {pair: r["via"] for pair, r in _pairs(mh_stack, {p1, p2, n}, 9).items()}
    assert (via[(n, n)], via[(p1, n)], via[(n, p1)], via[(p1, p2)]) == ("loopback", "relay", "direct", "direct"), via


def test_a_daemon_behind_a_router_holds_a_whole_job_its_nodes_talking_over_loopback(mh_stack, hosts) -> None:
    [nat] = hosts(1, max_instances=4, nat=True)
    job = mh_stack.api("POST", "/api/jobs/", {"name": "nat-4", "nodes": 4, "duration": 30, "code": MESH_APP})
    job = mh_stack.wait_job(job["id"], {"ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=60)
    lines = [(ln["node"], ln["text"]) for ln in mh_stack.logs(job["id"])]
    assert job["state"] == "ENDED", (job, lines)
    assert [i["daemon"] for i in job["instances"]] == [nat.daemon_name] * 4
    assert sorted(lines) == [(k, f"reply from {j} {nat.public_ip}") for k in range(1, 5) for j in range(1, 5)
                             if j != k], lines
