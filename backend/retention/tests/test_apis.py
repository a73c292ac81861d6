"""GET /api/jobs/<id>/archive/, GET/PATCH /api/jobs/<id>/retention/, and the course's
retention settings and disk use."""
from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync

from accounts.models import User
from accounts.tests.factories import user_make
from courses.models import Membership
from courses.tests.factories import client_for, course_make, member_add
from jobs.tests.factories import job_make
from retention.models import JobRetention
from retention.services import retention_sweep
from traces.tests.fixtures import ROWS

from .helpers import full_job

pytestmark = pytest.mark.django_db


@pytest.fixture
def course(teacher, student, other_student):
    course = course_make(retention_days=30)
    member_add(course, teacher, Membership.Role.INSTRUCTOR)
    member_add(course, student)
    member_add(course, other_student)
    return course


@pytest.fixture
def course_ta(course) -> User:
    ta = user_make("course-ta", role=User.Role.TA)
    member_add(course, ta, Membership.Role.TA)
    return ta


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


def test_the_job_page_learns_when_its_data_goes_and_why_it_is_gone(course, student, student_client) -> None:
    job = full_job(student, ended=timedelta(days=2))
    body = student_client.get(f"/api/jobs/{job.id}/retention/").json()
    assert (body["days"], body["max_mb"], body["keep"], body["may_keep"]) == (30, 100, False, False)
    assert body["policy_source"] == "course Distributed Systems"
    assert body["prune_after"] == (job.ended_at + timedelta(days=30)).isoformat().replace("+00:00", "Z")
    assert body["pruned_note"] == "" and body["log_bytes"] == 0  # not measured yet

    job.ended_at -= timedelta(days=29)
    job.save(update_fields=["ended_at"])
    retention_sweep()
    body = student_client.get(f"/api/jobs/{job.id}/retention/").json()
    assert body["pruned_note"].startswith("Logs, metrics and traces pruned on ")
    assert body["prune_after"] is None and body["pruned"]["log_lines"] == 20


def test_staff_keep_a_job_and_the_owner_may_not(course, course_ta, student, student_client, teacher_client) -> None:
    job = full_job(student, ended=timedelta(days=40))
    url = f"/api/jobs/{job.id}/retention/"
    refused = student_client.patch(url, {"keep": True}, format="json")
    assert refused.status_code == 403
    assert "instructors and TAs" in refused.json()["detail"]
    assert teacher_client.patch(url, {"keep": "maybe"}, format="json").json() == {"keep": ["Must be a valid boolean."]}

    kept = client_for(course_ta).patch(url, {"keep": True}, format="json")
    assert kept.status_code == 200 and kept.json()["keep"] is True and kept.json()["prune_after"] is None
    retention_sweep()
    assert job.log_lines.count() == 20

    teacher_client.patch(url, {"keep": False}, format="json")
    retention_sweep()
    assert job.log_lines.count() == 0


def test_another_courses_staff_cannot_keep_a_job(course, student) -> None:
    elsewhere = course_make("other", name="Other")
    their_ta = user_make("other-ta", role=User.Role.TA)
    member_add(elsewhere, their_ta, Membership.Role.TA)
    job = job_make(student, state="ENDED")
    assert client_for(their_ta).patch(f"/api/jobs/{job.id}/retention/", {"keep": True},
                                      format="json").status_code in (403, 404)
    assert not JobRetention.objects.filter(job=job, keep=True).exists()


def test_instructors_set_the_course_retention_and_bad_values_say_why(course, student_client, teacher_client) -> None:
    url = f"/api/courses/{course.id}/"
    body = teacher_client.patch(url, {"retention_days": 7, "retention_max_mb_per_job": 0}, format="json").json()
    assert (body["retention_days"], body["retention_max_mb_per_job"]) == (7, 0)
    bad = teacher_client.patch(url, {"retention_days": -1}, format="json")
    assert bad.status_code == 400 and "retention_days" in bad.json()
    assert student_client.patch(url, {"retention_days": 999}, format="json").status_code == 403
    course.refresh_from_db()
    assert course.retention_days == 7


def test_disk_use_is_for_the_courses_staff_only(course, course_ta, student, other_student, student_client,
                                                teacher_client) -> None:
    a, b = full_job(student, ended=timedelta(hours=2)), full_job(other_student, ended=timedelta(hours=2))
    full_job(user_make("outsider"), ended=timedelta(hours=2))  # not in the course: not counted
    retention_sweep()
    rows = JobRetention.objects.filter(job__in=[a, b])
    url = f"/api/courses/{course.id}/"

    use = teacher_client.get(url).json()["disk_use"]
    assert use["log_bytes"] == sum(r.log_bytes for r in rows) > 0
    assert use["metric_bytes"] == sum(r.metric_bytes for r in rows) > 0
    assert use["trace_bytes"] == sum(r.trace_bytes for r in rows) > 0
    assert use["total_bytes"] == use["log_bytes"] + use["metric_bytes"] + use["trace_bytes"]
    assert use["jobs"] == 2 and use["measured_at"]
    assert client_for(course_ta).get(url).json()["disk_use"] == use
    assert student_client.get(url).json()["disk_use"] is None
    assert all(c["disk_use"] is None for c in teacher_client.get("/api/courses/").json())
