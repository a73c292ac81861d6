"""A link taken down for 60 s loses no log line and no instance (issue 8, sessions): a plain job
of 8 nodes on 4 test hosts, each node printing a numbered line 20 times a second; host 2's
cable is cut 6 s into the run and plugged back 60 s later. The controller drops the silent link
(heartbeats, SPLAYLAB_DAEMON_DEAD_AFTER = 6 s: OFFLINE), the daemon keeps its nodes running and
journals their lines, then resumes the same session (60 s is inside SPLAYLAB_DAEMON_UNSEEN_AFTER,
120 s) and delivers them: every line stored once, in order, and every instance ENDED."""
from __future__ import annotations

import re
import time
from collections import defaultdict

import pytest

from multihost_helpers import daemon_states, wait_daemon_states

pytestmark = pytest.mark.stack

LINES = 1400   # per node, at 20 lines/s: 70 s of printing, the cut (6 s to 66 s) in the middle
RATE = 20
CUT_AT = 6
CUT_FOR = 60
NODES = 8

COUNTER = f"""
require "splay.base"
events.run(function()
  for i = 1, {LINES} do
    print("n " .. i)
    events.sleep({1 / RATE})
  end
  events.exit()
end)
"""

LINE = re.compile(r"^n (\d+)$")
CONNECTED = re.compile(r"connected to \S+ as daemon \S+ \(session (\w+)\)")


def test_a_link_cut_for_60_s_loses_no_log_line_and_no_instance(mh_stack, hosts) -> None:
    four = hosts(4, max_instances=2)
    cut = four[1]
    names = [h.daemon_name for h in four]

    job = mh_stack.api("POST", "/api/jobs/", {"name": "link-cut", "nodes": NODES, "duration": 300,
                                              "code": COUNTER})
    job = mh_stack.wait_job(job["id"], {"RUNNING", "ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=60)
    assert job["state"] == "RUNNING", job
    on_cut = [i["node"] for i in job["instances"] if i["daemon"] == cut.daemon_name]
    assert len(on_cut) == 2, job["instances"]     # 2 slots per host, 8 nodes: every host runs 2

    time.sleep(CUT_AT)
    cut.link_down()
    t_cut = time.monotonic()
    try:
        # The controller hears nothing more from host 2: its watchdog closes the link.
        offline_after = wait_daemon_states(mh_stack, [cut.daemon_name], {"OFFLINE"}, timeout=20)
        print(f"host 2's daemon OFFLINE {offline_after:.1f} s after the cut")
        others = daemon_states(mh_stack, names)
        assert all(others[h.daemon_name] == "ONLINE" for h in four if h is not cut), others
        # Meanwhile its nodes run on and the job waits for them.
        job_now = mh_stack.api("GET", f"/api/jobs/{job['id']}/")
        assert job_now["state"] == "RUNNING", job_now
        assert {i["state"] for i in job_now["instances"]} == {"RUNNING"}, job_now["instances"]
        time.sleep(max(0.0, CUT_FOR - (time.monotonic() - t_cut)))
    finally:
        cut.link_up()
    assert cut.daemon_alive()
    back_after = wait_daemon_states(mh_stack, [cut.daemon_name], {"ONLINE"}, timeout=30)
    print(f"host 2's daemon ONLINE again {back_after:.1f} s after the link came back")

    job = mh_stack.wait_job(job["id"], {"ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=120)
    logs = mh_stack.logs(job["id"])

    # The daemon was welcomed twice, into the same session (it resumed; nothing was reset).
    sessions = CONNECTED.findall(cut.log_text())
    assert len(sessions) >= 2 and len(set(sessions)) == 1, cut.log_text()[-3000:]
    web_log = (mh_stack.var / "log" / "web.log").read_text(errors="replace")
    assert f"daemon {cut.daemon_name} resumed session {sessions[0]}" in web_log

    assert job["state"] == "ENDED", job
    instances = job["instances"]
    assert len(instances) == NODES
    assert {i["state"] for i in instances} == {"ENDED"}, instances      # none LOST
    assert all(i["exit_reason"] == "ended normally" for i in instances), instances

    by_node: dict[int, list[dict]] = defaultdict(list)
    for ln in logs:
        by_node[ln["node"]].append(ln)
    assert sorted(by_node) == list(range(1, NODES + 1)), sorted(by_node)
    for node, lines in by_node.items():
        seqs = sorted(ln["seq"] for ln in lines)
        assert seqs == list(range(1, len(seqs) + 1)), (node, "seq not 1..N contiguous",
                                                       [s for s in seqs if seqs.count(s) > 1][:10])
        printed = [int(m.group(1)) for ln in lines if (m := LINE.match(ln["text"]))]
        assert sorted(printed) == list(range(1, LINES + 1)), (node, len(printed), len(set(printed)))
        in_seq_order = [int(m.group(1)) for ln in sorted(lines, key=lambda x: x["seq"])
                        if (m := LINE.match(ln["text"]))]
        assert in_seq_order == list(range(1, LINES + 1)), node              # and in order
        others = [ln for ln in lines if not LINE.match(ln["text"])]
        assert not others, (node, others[:5])
    # Host 2's nodes printed through the cut: their lines from those 60 s arrived afterwards.
    assert all(len(by_node[n]) == LINES for n in on_cut)
