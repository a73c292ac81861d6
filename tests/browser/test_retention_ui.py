"""Retention in a real browser (docs/decisions.md, "Retention"): after a sweep has measured a
student's job, the course's instructor sees what the students' jobs store on the course page,
and the job's owner downloads its archive from the job page, which says until when its data is
kept; the archive holds the job, its code and its log lines."""
from __future__ import annotations

import io
import json
import re
import time
import zipfile

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login

pytestmark = [pytest.mark.stack, pytest.mark.browser]

APP = """require "splay.base"
events.run(function()
  for i = 1, 3 do
    events.sleep(1)
    log.print("retained line " .. i .. " of node " .. job.position)
  end
end)
"""


def wait_ended(stack, job_id: int, token: str, timeout: float = 60) -> None:
    """stack.wait_job as the job's owner (the demo student may not see this student's job)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if stack.api("GET", f"/api/jobs/{job_id}/", token=token)["state"] == "ENDED":
            return
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not end in {timeout} s")


def test_the_instructor_sees_disk_use_and_the_owner_downloads_the_archive(page: Page, stack) -> None:
    (demo,) = [c for c in stack.api("GET", "/api/courses/", token=stack.teacher_token)
               if c["slug"] == "distributed-systems-demo"]
    token = stack.user_create("retention-ui-student")
    stack.api("POST", "/api/courses/join/", {"code": demo["join_code"]}, token=token)
    job = stack.api("POST", "/api/jobs/", {"code": APP, "nodes": 2, "duration": 10, "mode": "sim",
                                           "name": "retention run"}, token=token)
    wait_ended(stack, job["id"], token)
    lines = stack.api("GET", f"/api/jobs/{job['id']}/logs/", token=token)["lines"]
    assert len(lines) == 6
    sweep = json.loads(stack.manage("retention_sweep").strip().splitlines()[-1])
    assert sweep["measured"] >= 1 and not sweep["pruned_by_age"]

    # the instructor: the course page shows the students' jobs' bytes and the course's rule
    login(page, "teacher", "teacher-demo")
    page.goto(f"/courses/{demo['id']}")
    use = page.get_by_test_id("course-disk-use")
    expect(use).to_be_visible()
    expect(page.get_by_test_id("disk-logs")).to_have_text(re.compile(r"^\d+(\.\d)? (B|KB|MB|GB)$"))
    expect(page.get_by_test_id("disk-logs")).not_to_have_text("0 B")
    expect(page.get_by_test_id("disk-measured")).to_contain_text("measured")
    expect(page.get_by_test_id("course-retention-rule")).to_contain_text(
        f"kept {demo['retention_days']} days after a job ends")
    assert stack.api("GET", f"/api/courses/{demo['id']}/", token=token)["disk_use"] is None  # not for students

    # the owner: the job page says until when the data is kept, and the archive downloads
    page.context.clear_cookies()
    login(page, "retention-ui-student", "pw-retention-ui-student")
    page.goto(f"/jobs/{job['id']}")
    expect(page.get_by_test_id("job-prune-after")).to_contain_text("Logs, metrics and traces are kept until")
    expect(page.get_by_test_id("job-stored")).to_contain_text("Stored: logs")
    expect(page.get_by_test_id("job-keep")).to_have_count(0)  # only the course's staff keep a job
    with page.expect_download() as download_info:
        page.get_by_test_id("job-archive-link").click()
    download = download_info.value
    assert download.suggested_filename == f"job-{job['id']}.zip"
    archive = zipfile.ZipFile(io.BytesIO(open(download.path(), "rb").read()))
    described = json.loads(archive.read("job.json"))
    assert (described["id"], described["name"], described["state"]) == (job["id"], "retention run", "ENDED")
    assert archive.read("code/app.lua").decode() == APP
    texts = sorted(json.loads(x)["text"] for x in archive.read("logs.jsonl").decode().splitlines())
    assert texts == sorted(f"retained line {i} of node {n}" for i in (1, 2, 3) for n in (1, 2))


def test_a_pruned_job_says_why_its_logs_are_gone(page: Page, stack) -> None:
    (demo,) = [c for c in stack.api("GET", "/api/courses/", token=stack.teacher_token)
               if c["slug"] == "distributed-systems-demo"]
    token = stack.user_create("pruned-ui-student")
    stack.api("POST", "/api/courses/join/", {"code": demo["join_code"]}, token=token)
    job = stack.api("POST", "/api/jobs/", {"code": APP, "nodes": 1, "duration": 10, "mode": "sim"}, token=token)
    wait_ended(stack, job["id"], token)
    # the job ended 40 days ago, past the demo course's 30 days
    stack.manage("shell", "-c", (
        "from datetime import timedelta; from django.utils import timezone; from jobs.models import Job; "
        f"Job.objects.filter(id={job['id']}).update(ended_at=timezone.now() - timedelta(days=40))"))
    sweep = json.loads(stack.manage("retention_sweep").strip().splitlines()[-1])
    assert job["id"] in sweep["pruned_by_age"]

    login(page, "pruned-ui-student", "pw-pruned-ui-student")
    page.goto(f"/jobs/{job['id']}")
    why = re.compile(r"Logs, metrics and traces pruned on \d{4}-\d\d-\d\d \(retention 30 days after the job ended, "
                     r"course Distributed Systems \(demo\)\): 3 log lines\.")
    expect(page.get_by_test_id("job-pruned-note")).to_have_text(re.compile(why.pattern))
    expect(page.get_by_test_id("log-pruned-note")).to_have_text(re.compile(why.pattern))
    expect(page.get_by_test_id("job-state")).to_have_text("ENDED")
    expect(page.get_by_test_id("job-prune-after")).to_have_count(0)
