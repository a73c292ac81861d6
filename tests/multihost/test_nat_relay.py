"""Node traffic across home routers through the node relay (issue 24): one public test host and
two behind routers of their own (NatHost: masquerading, no port forwarding). Nobody reaches a
NATed host, and the NATed hosts do not reach each other; all three keep a link to the stack's
relay (splayd.relay, part "relay"), so one job spans them: every node calls every other (TCP rpc)
and over UDP (splay.urpc), direct where the probes said so (NATed -> public), relayed otherwise. Then a NATed host's relay link is
cut for 30 s mid-job (its router drops the relay's packets): calls through it fail as over a cut
cable (time out), the link comes back by itself and the calls succeed again."""
from __future__ import annotations

import re
import time

import pytest

from multihost_helpers import BRIDGE_IP

pytestmark = pytest.mark.stack

# Every node serves rpc (and, with UDP_PHASE, splay.urpc: calls every other node over UDP, a line
# each), then calls every other node over TCP in rounds for RUN s (at least one round; the first retries while peers
# start), each call's outcome a line, then serves LINGER s more.
MESH_APP = """
require "splay.base"
local rpc = require "splay.rpc"
function hello() return job.position end
rpc.server(job.me.port)
events.run(function()
  events.sleep(1)
  UDP_PHASE
  local t0, round = socket.gettime(), 0
  repeat
    round = round + 1
    for i, n in ipairs(job.nodes) do
      if i ~= job.position then
        local pos, err
        for _ = 1, (round == 1 and 10 or 1) do
          pos, err = rpc.call(n, {"hello"}, 3)
          if pos then break end
          events.sleep(0.5)
        end
        print(string.format("round %d %s %d %s", round, pos and "reply" or "fail", i, pos and "" or tostring(err)))
      end
    end
    events.sleep(2)
  until socket.gettime() - t0 >= RUN
  events.sleep(LINGER)
  events.exit()
end)
"""
# the UDP calls (splay.urpc; its client socket is on no node port), for the mesh test
UDP_PHASE = """
  local urpc = require "splay.urpc"
  urpc.server(job.me.port)
  events.sleep(1)
  for i, n in ipairs(job.nodes) do
    if i ~= job.position then
      local pos
      for _ = 1, 10 do
        pos = urpc.call(n, {"hello"}, 2)
        if pos then break end
        events.sleep(0.3)
      end
      print(string.format("udp %s %d", pos and "reply" or "fail", i))
    end
  end
"""
LINE = re.compile(r"^round (\d+) (reply|fail) (\d+) ?(.*)$")


def _pairs(mh_stack, names: set[str], want: int, timeout: float = 20) -> dict[tuple[str, str], str]:
    deadline = time.monotonic() + timeout
    rows: dict[tuple[str, str], str] = {}
    while time.monotonic() < deadline:
        rows = {(r["src_name"], r["dst_name"]): r["status"]
                for r in mh_stack.api("GET", "/api/daemons/reachability/", token=mh_stack.teacher_token)
                if r["src_name"] in names and r["dst_name"] in names}
        if len(rows) >= want:
            return rows
        time.sleep(0.3)
    raise AssertionError(f"{len(rows)} of {want} pairs measured within {timeout} s: {sorted(rows)}")


def _outcomes(mh_stack, job_id: int) -> dict[int, dict[tuple[int, int], tuple[str, str]]]:
    """{round: {(caller, callee): (reply | fail, why)}}"""
    out: dict[int, dict[tuple[int, int], tuple[str, str]]] = {}
    for ln in mh_stack.logs(job_id):
        if m := LINE.match(ln["text"]):
            out.setdefault(int(m.group(1)), {})[(ln["node"], int(m.group(3)))] = (m.group(2), m.group(4))
    return out


def test_one_job_spans_two_natted_hosts_and_a_public_one_through_the_relay(mh_stack, hosts) -> None:
    [public] = hosts(1, max_instances=2)
    nats = hosts(2, max_instances=2, nat=True)
    p, n1, n2 = public.daemon_name, nats[0].daemon_name, nats[1].daemon_name
    status = _pairs(mh_stack, {p, n1, n2}, 9)
    assert (status[(p, n1)], status[(n1, n2)], status[(n1, p)]) == ("none", "none", "direct"), status
    # the dashboard's reading, once every daemon's heartbeat said its relay link is up
    deadline, rows = time.monotonic() + 15, {}
    while time.monotonic() < deadline:
        rows = {(r["src_name"], r["dst_name"]): r for r in
                mh_stack.api("GET", "/api/daemons/reachability/", token=mh_stack.teacher_token)}
        if all(rows[pair]["via"] == "relay" for pair in ((p, n1), (p, n2), (n1, n2), (n2, n1))):
            break
        time.sleep(0.3)
    assert rows[(p, n1)]["via"] == "relay" and rows[(n1, p)]["via"] == "direct", rows[(p, n1)]

    code = MESH_APP.replace("RUN", "0").replace("LINGER", "5").replace("UDP_PHASE", UDP_PHASE)
    job = mh_stack.api("POST", "/api/jobs/", {"name": "relay-6", "nodes": 6, "duration": 60, "code": code})
    job = mh_stack.wait_job(job["id"], {"ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=90)
    assert job["state"] == "ENDED", job
    assert sorted(i["daemon"] for i in job["instances"]) == sorted([p, p, n1, n1, n2, n2])
    calls = _outcomes(mh_stack, job["id"])[1]
    assert calls == {(a, b): ("reply", "") for a in range(1, 7) for b in range(1, 7) if a != b}, calls
    udp = {(ln["node"], int(m.group(2))): m.group(1) for ln in mh_stack.logs(job["id"])
           if (m := re.match(r"^udp (reply|fail) (\d+)$", ln["text"]))}
    assert udp == {(a, b): "reply" for a in range(1, 7) for b in range(1, 7) if a != b}, udp  # datagrams too


def test_a_relay_link_cut_for_30_s_fails_calls_as_a_cable_would_and_comes_back(mh_stack, hosts) -> None:
    [public] = hosts(1, max_instances=1)
    [nat] = hosts(1, max_instances=1, nat=True)
    _pairs(mh_stack, {public.daemon_name, nat.daemon_name}, 4)
    deadline = time.monotonic() + 15  # both relay links up (heartbeats), so the pair is placed
    while time.monotonic() < deadline and not any(
            r["via"] == "relay" for r in mh_stack.api("GET", "/api/daemons/reachability/", token=mh_stack.teacher_token)
            if (r["src_name"], r["dst_name"]) == (public.daemon_name, nat.daemon_name)):
        time.sleep(0.3)
    relay_port = str(mh_stack.cfg.relay_port)
    # rounds every 2-5 s for 65 s: before, during and after the cut
    code = MESH_APP.replace("RUN", "65").replace("LINGER", "20").replace("UDP_PHASE", "")
    job = mh_stack.api("POST", "/api/jobs/", {"name": "relay-cut", "nodes": 2, "duration": 120, "code": code})
    mh_stack.wait_job(job["id"], {"RUNNING"}, timeout=60)
    deadline = time.monotonic() + 40  # the rounds are under way (past the first, which retries)
    while time.monotonic() < deadline and len(_outcomes(mh_stack, job["id"])) < 3:
        time.sleep(0.5)
    cut = [["-p", "tcp", "-d", BRIDGE_IP, "--dport", relay_port], ["-p", "tcp", "-s", BRIDGE_IP, "--sport", relay_port]]
    for rule in cut:  # the router drops the relay link's packets both ways: a cut cable for it
        nat.router_exec("iptables", "-I", "FORWARD", *rule, "-j", "DROP")
    time.sleep(30)
    for rule in cut:
        nat.router_exec("iptables", "-D", "FORWARD", *rule, "-j", "DROP")
    job = mh_stack.wait_job(job["id"], {"ENDED", "FAILED", "KILLED"}, timeout=90)
    assert job["state"] == "ENDED", job
    rounds = _outcomes(mh_stack, job["id"])
    public_node = next(i["node"] for i in job["instances"] if i["daemon"] == public.daemon_name)
    nat_node = 3 - public_node
    relayed = [rounds[r][(public_node, nat_node)][0] for r in sorted(rounds) if (public_node, nat_node) in rounds[r]]
    assert relayed[0] == "reply" and relayed[-1] == "reply", relayed  # before the cut, and after
    assert relayed.count("fail") >= 5, relayed  # ~30 s of rounds (each a 3 s timeout) failed meanwhile
    whys = {e for r in rounds.values() for (out, e) in r.values() if out == "fail"}
    assert {e.split(" failed: ")[-1] for e in whys} == {"timeout"}, whys  # as a cut cable: never a refusal
    first, last = relayed.index("fail"), len(relayed) - 1 - relayed[::-1].index("fail")
    assert set(relayed[first:last + 1]) == {"fail"}, relayed  # one outage, then back for good
    assert nat.log_text().count("relay link up") >= 2  # the link came back by itself
