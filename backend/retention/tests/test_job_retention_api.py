"""GET/PATCH /api/jobs/<id>/retention/: when a job's data goes, why it is gone, and "keep"."""
from __future__ import annotations

from datetime import timedelta

import pytest

from accounts.models import User
from accounts.tests.factories import user_make
from courses.models import Membership
from courses.tests.factories import client_for, course_make, member_add
from jobs.tests.factories import job_make
from retention.models import JobRetention
from retention.services import retention_sweep

from .helpers import full_job

pytestmark = pytest.mark.django_db


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
