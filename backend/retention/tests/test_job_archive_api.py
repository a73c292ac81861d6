"""GET /api/jobs/<id>/archive/: the job as a streamed .zip, for whoever sees the job."""
from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync

from courses.tests.factories import client_for
from retention.models import JobRetention
from retention.services import retention_sweep
from traces.tests.fixtures import ROWS

from .helpers import full_job

pytestmark = pytest.mark.django_db


def archive_of(response) -> zipfile.ZipFile:
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"].startswith("attachment; filename=\"job-")
    return zipfile.ZipFile(io.BytesIO(async_to_sync(_read)(response.streaming_content)))


async def _read(stream) -> bytes:
    """The body as an ASGI server reads it: an async iterator (pieces made in the sync thread,
    here the test's own, which holds the test's transaction)."""
    return b"".join([piece async for piece in stream])


def test_the_owner_downloads_everything_the_job_stored(course, student, student_client) -> None:
    job = full_job(student, ended=timedelta(days=2), name="ring test")
    zf = archive_of(student_client.get(f"/api/jobs/{job.id}/archive/"))

    assert zf.testzip() is None
    assert set(zf.namelist()) == {"README.txt", "job.json", "code/app.lua", "logs.txt", "logs.jsonl", "metrics.jsonl",
                                  "metrics_summary.json", "trace.jsonl", "probes.jsonl", "trace_summary.json"}
    described = json.loads(zf.read("job.json"))
    assert (described["id"], described["name"], described["state"]) == (job.id, "ring test", "ENDED")
    assert [i["node"] for i in described["instances"]] == [1]
    assert zf.read("code/app.lua").decode() == job.code
    logs = [json.loads(x) for x in zf.read("logs.jsonl").decode().splitlines()]
    assert [ln["seq"] for ln in logs] == list(range(1, 21)) and logs[0]["text"].startswith("line 1 ")
    text = zf.read("logs.txt").decode().splitlines()
    assert len(text) == 20 and text[0].startswith("1700000001.000\tnode 1\tprint\tline 1 ")
    samples = [json.loads(x) for x in zf.read("metrics.jsonl").decode().splitlines()]
    assert [(s["name"], s["node"], s["value"], s["fields"]) for s in samples] == [
        ("lookup_latency", 1, 0.01, {"hops": 1}), ("lookup_latency", 1, 0.02, {"hops": 2})]
    assert json.loads(zf.read("metrics_summary.json"))[0]["count"] == 2
    trace = [json.loads(x) for x in zf.read("trace.jsonl").decode().splitlines()]
    assert trace[0] == [ROWS[1][0][0], 1, *ROWS[1][0][1:]]
    assert len(trace) == sum(len(r) for r in ROWS.values())
    probes = [json.loads(x) for x in zf.read("probes.jsonl").decode().splitlines()]
    assert [(p["node"], p["name"], p["value"]) for p in probes] == [(1, "lookup", 1.5)]
    assert "NOTE" not in zf.read("README.txt").decode()


def test_a_pruned_jobs_archive_says_what_went_and_when(student, student_client, settings) -> None:
    settings.SPLAYLAB_RETENTION_DAYS = 1
    job = full_job(student, ended=timedelta(days=3))
    retention_sweep()
    zf = archive_of(student_client.get(f"/api/jobs/{job.id}/archive/"))
    assert zf.read("logs.jsonl") == b"" and zf.read("trace.jsonl") == b""
    note = JobRetention.objects.get(job=job).pruned_note
    assert f"NOTE: {note}" in zf.read("README.txt").decode()
    assert json.loads(zf.read("job.json"))["retention"]["note"] == note


def test_course_staff_download_a_students_archive_another_student_and_anonymous_do_not(
        course, course_ta, student, other_client, teacher_client, anon_client) -> None:
    job = full_job(student, ended=timedelta(days=2))
    url = f"/api/jobs/{job.id}/archive/"
    assert other_client.get(url).status_code == 404
    assert anon_client.get(url).status_code in (401, 403)
    assert archive_of(teacher_client.get(url)).read("code/app.lua").decode() == job.code
    assert archive_of(client_for(course_ta).get(url)).namelist()
    assert client_for(student).get(url, HTTP_ACCEPT="application/zip").status_code == 200
    assert other_client.get(url, HTTP_ACCEPT="application/zip").status_code == 404
