"""A REGISTER above the owner's limits is refused with the reason (issue 8, owner's limits;
docs/architecture.md "Owner's limits"): a test host whose owner allows 64 MB per node
(`max_mem_mb = 64`, label room=lim that only it has) next to one without that label.
(a) The controller does not ask it for more: a job whose descriptor wants 128 MB on room=lim
ends NO_RESOURCES and its reason names both exclusions, while the same job asking 48 MB runs
there. (b) Asked anyway (a raw `register` through the controller's command path,
daemons.commands.commands_send), the daemon refuses: `ok: false`, "INVALID_MEM: asked 128 MB
per node, this daemon allows 64 MB", nothing reserved."""
from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.stack

MB = 1024 * 1024
FINAL = {"RUNNING", "ENDED", "FAILED", "KILLED", "NO_RESOURCES"}


def app(max_mem: int) -> str:
    return f"""--[[
BEGIN SPLAY RESOURCES RESERVATION
nb_splayds 1
max_time 5
max_mem {max_mem}
daemon_labels room=lim
END SPLAY RESOURCES RESERVATION
]]
require "splay.base"
events.run(function() print("ran on " .. job.me.ip) end)
"""


def register(stack, daemon_id: int, job: int, max_mem: int, count: int = 1) -> list[dict]:
    """Send one register frame to the daemon through the controller (channel layer → its
    consumer → the socket) and return the replies."""
    frame = {"type": "register", "job": job, "count": count, "max_mem": max_mem, "max_cpu": 10, "duration": 10}
    out = stack.manage("shell", "-c", (
        "import json; from daemons.commands import Command, commands_send; "
        f"r = commands_send([Command({daemon_id}, {json.dumps(frame)})], timeout=15); "
        "print('REPLIES ' + json.dumps([x.frame for x in r]))"))
    line = next(ln for ln in out.splitlines() if ln.startswith("REPLIES "))
    return json.loads(line[len("REPLIES "):])


def test_a_register_above_the_owners_limits_is_refused_with_the_reason(mh_stack, hosts) -> None:
    low, other = hosts(2, max_instances=2, per_host={
        1: {"max_mem_mb": 64, "labels": {"room": "lim"}},
        2: {"labels": {"room": "open"}}})
    rows = {d["name"]: d for d in mh_stack.api("GET", "/api/daemons/", token=mh_stack.teacher_token)}
    assert rows[low.daemon_name]["limits"]["max_mem_mb"] == 64, rows[low.daemon_name]
    assert rows[low.daemon_name]["labels"] == {"room": "lim"}, rows[low.daemon_name]

    # (a) Asking more than the only room=lim daemon allows: no candidate, and the reason says why.
    job = mh_stack.api("POST", "/api/jobs/", {"name": "above-ceiling", "code": app(128 * MB)})
    job = mh_stack.wait_job(job["id"], FINAL, timeout=30)
    assert job["state"] == "NO_RESOURCES", job
    assert "1 daemon excluded: max_mem 128 MB above their owners' limit" in job["reason"], job
    assert "1 daemon excluded: labels room=lim not matched" in job["reason"], job
    assert job["reason"].startswith("job needs 1 instance, only 0 free slots on 0 online daemons"), job
    # Within the ceiling, the same job runs there (the label alone did not exclude it).
    ok = mh_stack.api("POST", "/api/jobs/", {"name": "within-ceiling", "code": app(48 * MB)})
    ok = mh_stack.wait_job(ok["id"], {"ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=60)
    assert ok["state"] == "ENDED", ok
    assert [i["daemon"] for i in ok["instances"]] == [low.daemon_name], ok

    # (b) A register above the ceiling sent anyway through the controller's path is refused.
    daemon_id = rows[low.daemon_name]["id"]
    replies = register(mh_stack, daemon_id, 999_001, 128 * MB)
    assert len(replies) == 1 and replies[0]["ok"] is False, replies
    reason = replies[0]["reason"]
    assert reason.startswith("INVALID_MEM:"), reason
    assert reason == "INVALID_MEM: asked 128 MB per node, this daemon allows 64 MB", reason
    assert "128 MB" in reason and "64 MB" in reason
    # Nothing was reserved: both slots are still free for a register within the ceiling.
    replies = register(mh_stack, daemon_id, 999_002, 64 * MB, count=2)
    assert replies[0]["ok"] is True and len(replies[0]["ports"]) == 2, replies
    assert "job 999001: reserved" not in low.log_text() and "job 999002: reserved" in low.log_text()
