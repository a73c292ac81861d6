"""Reconnects reconcile from the journal first (issue 20; docs/architecture.md, "Sessions"):
nodes finish while their daemons cannot talk (SIGSTOP, with the controller killed meanwhile,
or PostgreSQL and Redis restarted mid-job). The exits journaled meanwhile decide the
instances' states, not the hello's list of what still runs: the job ENDS and every line is
stored once."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import time
from pathlib import Path

import pytest

import stack_helpers
from stack_helpers import RunningStack, running_stack

from cli import services  # noqa: E402 - stack_helpers puts backend/ on the path

pytestmark = pytest.mark.stack

TICKS = 100
COUNTER = f"""
require "splay.base"
events.run(function()
  for i = 1, {TICKS} do print("tick " .. i); events.sleep(0.04) end
  events.exit()
end)
"""


def _freeze(s: RunningStack, sig: int) -> None:
    for name, proc in s.handle.children.items():
        if name.startswith("lab-"):
            os.kill(proc.pid, sig)  # the daemon only: its nodes run on, in sessions of their own


def _check(s: RunningStack, job_id: int, nodes: int) -> None:
    done = s.wait_job(job_id, {"ENDED", "FAILED", "KILLED"}, timeout=60)
    assert done["state"] == "ENDED", done
    assert [i["state"] for i in done["instances"]] == ["ENDED"] * nodes, done["instances"]
    for node in range(1, nodes + 1):
        lines = s.logs(job_id, node)
        ticks = [ln["text"] for ln in lines if ln["text"].startswith("tick ")]
        assert ticks == [f"tick {i}" for i in range(1, TICKS + 1)], (node, len(ticks))
        assert [ln["seq"] for ln in lines] == list(range(1, len(lines) + 1)), node
    daemons = s.api("GET", "/api/daemons/", token=s.teacher_token)
    assert all(d["state"] == "ONLINE" for d in daemons), daemons


def _frozen_while_nodes_finish(s: RunningStack, during=None) -> int:
    job = s.api("POST", "/api/jobs/", {"code": COUNTER, "nodes": 6, "duration": 90})
    s.wait_job(job["id"], {"RUNNING"}, timeout=30)
    _freeze(s, signal.SIGSTOP)
    started = time.monotonic()
    try:
        if during is not None:
            during()
        time.sleep(max(0.0, 20 - (time.monotonic() - started)))  # nodes end after ~4 s
    finally:
        _freeze(s, signal.SIGCONT)
    return job["id"]


def test_daemons_frozen_while_their_nodes_finish(tmp_path: Path) -> None:
    with running_stack(tmp_path, 8782, "splaylab_it_freeze", 12, daemons=2) as s:
        _check(s, _frozen_while_nodes_finish(s), 6)


def test_daemons_frozen_and_the_controller_killed_meanwhile(tmp_path: Path) -> None:
    with running_stack(tmp_path, 8783, "splaylab_it_freeze_web", 13, daemons=2) as s:
        job_id = _frozen_while_nodes_finish(s, during=lambda: (time.sleep(3), s.restart("web", down_for=5)))
        _check(s, job_id, 6)
        web_log = (tmp_path / "log" / "web.log").read_text()
        assert "no longer runs it" not in web_log


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_postgresql_and_redis_restarted_mid_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its own PostgreSQL and Redis, so restarting them disturbs no other test (under the
    repository's var/: PostgreSQL runs as the postgres user when the tests run as root, and
    pytest's temporary folders are private to root)."""
    var = stack_helpers.ROOT / "var" / f"it-outage-{os.getpid()}"
    pg_port, redis_port = _free_port(), _free_port()
    monkeypatch.setenv("DATABASE_URL", services.start_postgres(var, pg_port))
    monkeypatch.setenv("REDIS_URL", services.start_redis(var, redis_port))
    try:
        with running_stack(tmp_path / "stack", 8784, "splaylab_it_outage", 1, daemons=2) as s:
            job = s.api("POST", "/api/jobs/", {"code": COUNTER.replace("0.04", "0.15"), "nodes": 4,
                                               "duration": 90})
            s.wait_job(job["id"], {"RUNNING"}, timeout=30)
            services.stop_postgres(var)  # nodes print on; frames wait in the daemons' journals
            time.sleep(3)
            services.start_postgres(var, pg_port)
            time.sleep(2)
            services.stop_redis(var)
            time.sleep(3)
            services.start_redis(var, redis_port)
            _check(s, job["id"], 4)
    finally:
        services.stop_postgres(var)
        services.stop_redis(var)
        shutil.rmtree(var, ignore_errors=True)

