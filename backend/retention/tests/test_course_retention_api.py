"""The course's retention settings (PATCH /api/courses/<id>/) and its disk use (staff only)."""
from __future__ import annotations

from datetime import timedelta

import pytest

from accounts.tests.factories import user_make
from courses.tests.factories import client_for
from retention.models import JobRetention
from retention.services import retention_sweep

from .helpers import full_job

pytestmark = pytest.mark.django_db


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
