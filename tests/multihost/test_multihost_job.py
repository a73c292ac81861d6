"""A job spread over 4 test hosts (network namespaces, tests/multihost_helpers.py): each node
calls every other node over the network, so most calls cross the bridge between hosts."""
from __future__ import annotations

import re
from collections import defaultdict

import pytest

pytestmark = pytest.mark.stack

# Every node serves `hello`, then calls it on every other node (retrying while a peer's server
# is not up yet) and logs the answers; the callee logs who called. Nodes reach each other at
# job.nodes[i].ip, the address of the daemon's host (its config `ip`).
MESH_APP = """
require "splay.base"
local rpc = require "splay.rpc"

function hello(from, ip)
  print("got hello from " .. from .. " " .. ip)
  return job.position, job.me.ip
end

rpc.server(job.me.port)
events.run(function()
  events.sleep(1)
  for i, n in ipairs(job.nodes) do
    if i ~= job.position then
      local pos, ip
      for attempt = 1, 20 do
        pos, ip = rpc.call(n, {"hello", job.position, job.me.ip}, 5)
        if pos then break end
        events.sleep(0.5)
      end
      if pos then
        print("reply from " .. pos .. " " .. ip)
      else
        log.warning("no answer from node " .. i .. " at " .. n.ip .. ":" .. n.port .. ": " .. tostring(ip))
      end
    end
  end
  events.sleep(3)  -- the others' calls to this node
  print("done " .. job.position .. " " .. job.me.ip)
  events.exit()
end)
"""

NODES = 8
GOT = re.compile(r"^got hello from (\d+) (\S+)$")
REPLY = re.compile(r"^reply from (\d+) (\S+)$")
DONE = re.compile(r"^done (\d+) (\S+)$")


def test_a_job_spread_over_four_hosts_runs_and_its_nodes_talk_across_hosts(mh_stack, hosts) -> None:
    # 2 slots per host and 8 nodes: the scheduler has to use every host (all 8 slots).
    four = hosts(4, max_instances=2)
    by_daemon = {h.daemon_name: h for h in four}
    counters = {h.name: h.exec("cat", "/sys/class/net/eth0/statistics/tx_bytes").stdout for h in four}

    job = mh_stack.api("POST", "/api/jobs/", {"name": "multihost-mesh", "nodes": NODES,
                                              "duration": 40, "code": MESH_APP})
    job = mh_stack.wait_job(job["id"], {"ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=90)
    logs = mh_stack.logs(job["id"])
    text = "\n".join(f"node {ln['node']} {ln['level']} {ln['text']}" for ln in logs)

    assert job["state"] == "ENDED", (job, text)
    instances = job["instances"]
    assert len(instances) == NODES
    assert {i["state"] for i in instances} == {"ENDED"}, instances
    per_daemon = defaultdict(list)
    for inst in instances:
        per_daemon[inst["daemon"]].append(inst["node"])
    assert sorted(per_daemon) == sorted(by_daemon), per_daemon          # every host ran nodes
    assert all(len(nodes) == 2 for nodes in per_daemon.values()), per_daemon
    host_of_node = {inst["node"]: by_daemon[inst["daemon"]] for inst in instances}

    got, replies, done = defaultdict(set), defaultdict(set), {}
    for ln in logs:
        if m := GOT.match(ln["text"]):
            got[ln["node"]].add((int(m.group(1)), m.group(2)))
        elif m := REPLY.match(ln["text"]):
            replies[ln["node"]].add((int(m.group(1)), m.group(2)))
        elif m := DONE.match(ln["text"]):
            done[ln["node"]] = m.group(2)
    everyone = {(n, host_of_node[n].ip) for n in range(1, NODES + 1)}
    for node in range(1, NODES + 1):
        me = (node, host_of_node[node].ip)
        assert done.get(node) == host_of_node[node].ip, (node, text)       # ran with its host's ip
        assert got[node] == everyone - {me}, (node, text)                  # every call arrived...
        assert replies[node] == everyone - {me}, (node, text)              # ...and was answered
    cross = sum(1 for n in got for _, ip in got[n] if ip != host_of_node[n].ip)
    assert cross == NODES * (NODES - 2), text   # 6 of each node's 7 callers are on other hosts
    assert not [ln for ln in logs if ln["level"] in ("warning", "error")], text

    for h in four:  # and the bytes did go out through each host's veth
        after = h.exec("cat", "/sys/class/net/eth0/statistics/tx_bytes").stdout
        assert int(after) > int(counters[h.name]), h.name
