"""Each bad input of the end-to-end issue, with the outcome a user sees."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from stack_helpers import ROOT, running_stack

pytestmark = pytest.mark.stack


def test_syntax_error_fails_the_job_naming_the_line(stack, tmp_path: Path) -> None:
    app = tmp_path / "broken.lua"
    app.write_text('print("fine")\nlocal x = = 3\n')

    result = stack.cli("submit", str(app), "--nodes", "3", "--time", "10", "--follow")

    assert result.returncode == 1
    assert "FAILED" in result.stderr and "broken.lua:2:" in result.stderr
    job_id = int(result.stderr.split()[1])
    job = stack.api("GET", f"/api/jobs/{job_id}/")
    assert job["state"] == "FAILED"
    assert job["error_line"] == 2
    assert "syntax error" in job["reason"].lower()


def test_runtime_error_in_one_node_leaves_the_others_running(stack, tmp_path: Path) -> None:
    app = tmp_path / "one_fails.lua"
    app.write_text(
        'require "splay.base"\n'
        'events.run(function()\n'
        '  if job.position == 2 then error("node two gives up") end\n'
        '  events.sleep(1.5)\n'
        '  print("still alive " .. job.position)\n'
        '  events.exit()\n'
        'end)\n')

    result = stack.cli("submit", str(app), "--nodes", "4", "--time", "20", "--follow")

    job_id = int(result.stderr.split()[1])
    job = stack.api("GET", f"/api/jobs/{job_id}/")
    states = {i["node"]: i["state"] for i in job["instances"]}
    assert states == {1: "ENDED", 2: "FAILED", 3: "ENDED", 4: "ENDED"}
    assert job["state"] == "ENDED" and result.returncode == 0
    logs = stack.api("GET", f"/api/jobs/{job_id}/logs/?node=2")["lines"]
    text = "\n".join(line["text"] for line in logs)
    assert "node two gives up" in text and "traceback" in text.lower()
    alive = [line["text"] for line in stack.api("GET", f"/api/jobs/{job_id}/logs/")["lines"]
             if line["text"].startswith("still alive")]
    assert sorted(alive) == ["still alive 1", "still alive 3", "still alive 4"]


def test_job_larger_than_capacity_gets_no_resources_with_the_numbers(stack, tmp_path: Path) -> None:
    app = tmp_path / "big.lua"
    app.write_text('print("never")\n')

    result = stack.cli("submit", str(app), "--nodes", "1000", "--time", "10", "--follow")

    assert result.returncode == 1
    job_id = int(result.stderr.split()[1])
    job = stack.api("GET", f"/api/jobs/{job_id}/")
    assert job["state"] == "NO_RESOURCES"
    assert "1000" in job["reason"] and "200" in job["reason"]


def test_stop_kills_a_running_job(stack, tmp_path: Path) -> None:
    app = tmp_path / "forever.lua"
    app.write_text('require "splay.base"\nevents.run(function()\n'
                   '  while true do print("tick") events.sleep(0.2) end\nend)\n')
    result = stack.cli("submit", str(app), "--nodes", "3", "--time", "120")
    job_id = int(result.stdout.strip())
    stack.wait_job(job_id, {"RUNNING"}, timeout=30)

    stopped = stack.cli("stop", str(job_id))

    assert stopped.returncode == 0, stopped.stderr
    job = stack.wait_job(job_id, {"KILLED"}, timeout=20)
    assert "student" in job["reason"]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(i["state"] != "KILLED" for i in job["instances"]):
        time.sleep(0.2)
        job = stack.api("GET", f"/api/jobs/{job_id}/")
    assert {i["state"] for i in job["instances"]} == {"KILLED"}


def test_api_refuses_anonymous_and_hides_other_users_jobs(stack, tmp_path: Path) -> None:
    req = urllib.request.Request(stack.url + "/api/jobs/")
    with pytest.raises(urllib.error.HTTPError) as anonymous:
        urllib.request.urlopen(req, timeout=10)
    assert anonymous.value.code in (401, 403)

    teacher_job = stack.api("POST", "/api/jobs/", {"code": 'print("t")', "nodes": 1, "duration": 5},
                            token=stack.teacher_token)
    with pytest.raises(urllib.error.HTTPError) as hidden:
        stack.api("GET", f"/api/jobs/{teacher_job['id']}/logs/")
    assert hidden.value.code == 404
    with pytest.raises(urllib.error.HTTPError) as daemons:
        stack.api("GET", "/api/daemons/")
    assert daemons.value.code == 403


def test_daemon_with_unknown_key_is_refused_with_a_message(stack, tmp_path: Path) -> None:
    conf = tmp_path / "intruder.toml"
    conf.write_text(
        'name = "intruder"\n'
        f'controller = "ws://127.0.0.1:{stack.url.rsplit(":", 1)[1]}/ws/daemon/"\n'
        'key = "not-a-key-the-controller-knows"\n'
        'max_instances = 2\nports = [29000, 29010]\n'
        f'work_dir = "{tmp_path / "work"}"\n')

    result = subprocess.run([str(ROOT / "splaylab"), "daemon", "--config", str(conf)],
                            capture_output=True, text=True, timeout=30)

    assert result.returncode != 0
    assert "unknown daemon key" in (result.stdout + result.stderr)


def test_silent_daemon_is_marked_unseen_and_its_instances_lost(tmp_path: Path) -> None:
    with running_stack(tmp_path, 8766, "splaylab_it_unseen", 6, daemons=1, max_instances=4,
                       extra_env={"SPLAYLAB_DAEMON_UNSEEN_AFTER": "4", "SPLAYLAB_HEARTBEAT": "1"}) as solo:
        app = tmp_path / "long.lua"
        app.write_text('require "splay.base"\nevents.run(function()\n'
                       '  while true do events.sleep(0.5) end\nend)\n')
        job_id = int(solo.cli("submit", str(app), "--nodes", "2", "--time", "120").stdout)
        solo.wait_job(job_id, {"RUNNING"}, timeout=30)
        daemon_pid = int((tmp_path / "run" / "lab-1.pid").read_text())

        os.kill(daemon_pid, signal.SIGSTOP)  # the daemon goes silent, its socket stays open
        try:
            deadline = time.monotonic() + 40
            daemon, job = {}, {}
            while time.monotonic() < deadline:
                daemon = solo.api("GET", "/api/daemons/", token=solo.teacher_token)
                daemon = (daemon["results"] if isinstance(daemon, dict) else daemon)[0]
                job = solo.api("GET", f"/api/jobs/{job_id}/")
                if daemon["state"] == "UNSEEN" and job["state"] not in ("RUNNING",):
                    break
                time.sleep(0.5)
        finally:
            os.kill(daemon_pid, signal.SIGCONT)
        assert daemon["state"] == "UNSEEN"
        assert {i["state"] for i in job["instances"]} == {"LOST"}
        assert job["state"] == "FAILED" and "lost" in job["reason"].lower()
