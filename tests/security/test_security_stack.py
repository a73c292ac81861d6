"""A handful of hostile programs through the whole stack (REST → scheduler → two real
splayd daemons under bwrap → the job page's data): the outcome the student sees."""
from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

pytestmark = pytest.mark.stack


def block(*lines: str) -> str:
    return ("--[[\nBEGIN SPLAY RESOURCES RESERVATION\n" + "\n".join(lines)
            + "\nEND SPLAY RESOURCES RESERVATION\n]]\n")


def submit(stack, code: str, **fields) -> dict:
    return stack.api("POST", "/api/jobs/", {"code": code, **fields})


def logs(stack, job_id: int) -> list[tuple[int, str, str]]:
    lines = stack.api("GET", f"/api/jobs/{job_id}/logs/")["lines"]
    return [(ln["node"], ln["level"], ln["text"]) for ln in lines]


def test_descriptor_memory_limit_kills_a_string_bomb(stack) -> None:
    job = submit(stack, block("nb_splayds 1", "max_mem 33554432") + 'local s = "x"\nwhile true do s = s .. s end\n',
                 duration=20)
    job = stack.wait_job(job["id"], {"ENDED", "FAILED"})
    assert job["state"] == "FAILED" and job["nodes"] == 1
    assert job["reason"] == "instance failed; node 1: killed: memory limit of 32 MB reached"
    assert [i["exit_reason"] for i in job["instances"]] == ["killed: memory limit of 32 MB reached"]


def test_descriptor_max_time_ends_a_program_that_sleeps_forever(stack) -> None:
    job = submit(stack, block("nb_splayds 2", "max_time 2") + 'print("up")\nwhile true do events.sleep(10) end\n',
                 duration=600)
    assert (job["nodes"], job["duration"]) == (2, 2)
    job = stack.wait_job(job["id"], {"ENDED", "FAILED"})
    assert (job["state"], job["reason"]) == ("ENDED", "all 2 instances ended")
    assert [i["exit_reason"] for i in job["instances"]] == ["killed: duration of 2 s reached"] * 2
    assert sorted(logs(stack, job["id"])) == [(1, "print", "up"), (2, "print", "up")]


def test_shell_escape_fails_with_the_sandbox_message(stack) -> None:
    job = submit(stack, 'os.execute("rm -rf /")\n', nodes=1, duration=20)
    job = stack.wait_job(job["id"], {"ENDED", "FAILED"})
    message = "app.lua:1: os.execute is not available in the SplayLab sandbox: runs a host command"
    assert (job["state"], job["reason"]) == ("FAILED", f"instance failed; node 1: runtime error: {message}")
    assert job["instances"][0]["exit_reason"] == f"runtime error: {message}"


def test_head_list_of_the_descriptor_shapes_job_nodes(stack) -> None:
    code = block("nb_splayds 3", "list_type head", "list_size 1") + "print(#job.nodes, job.nodes[1].port == job.me.port)\n"
    job = stack.wait_job(submit(stack, code, duration=20)["id"], {"ENDED", "FAILED"})
    assert job["state"] == "ENDED"
    texts = sorted(logs(stack, job["id"]))
    assert [t[2] for t in texts] == ["1\ttrue", "1\tfalse", "1\tfalse"]


def test_bad_descriptor_is_refused_at_submit_naming_the_line(stack) -> None:
    req = urllib.request.Request(stack.url + "/api/jobs/", method="POST",
                                 data=json.dumps({"code": block("nb_splayds many"), "duration": 5}).encode())
    req.add_header("Authorization", f"Token {stack.student_token}")
    req.add_header("Content-Type", "application/json")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(req, timeout=30)
    assert info.value.code == 400
    assert json.loads(info.value.read()) == {
        "code": ["app.lua:3: descriptor: 'nb_splayds': expected an integer, got 'many'"]}
