"""A student's course quotas on live jobs (docs/decisions.md, "Grading"): nodes per job, jobs at
once and minutes per day, the most generous of their courses; staff and users in no course are
not bound; simulations are not counted."""
from datetime import timedelta

import pytest
from django.utils import timezone

from courses.models import Course, Membership
from jobs.models import Job

URL = "/api/jobs/"


@pytest.fixture(autouse=True)
def no_scheduling(monkeypatch):
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    monkeypatch.setattr("jobs.tasks.simulation_run.delay", lambda job_id: None)


@pytest.fixture
def course(student):
    c = Course.objects.create(name="DS 101", slug="ds-101", max_nodes_per_job=20, max_concurrent_jobs=2,
                              minutes_per_day_per_student=10)
    Membership.objects.create(user=student, course=c, role=Membership.Role.STUDENT)
    return c


def post(client, **body):
    return client.post(URL, {"code": "print('hi')", "nodes": 3, "duration": 60, **body}, format="json")


def test_nodes_per_job_names_the_course(student_client, course) -> None:
    assert post(student_client, nodes=20).status_code == 201
    res = post(student_client, nodes=21)
    assert res.status_code == 400
    assert res.json()["nodes"] == ["your course (DS 101) allows at most 20 nodes per job"]


def test_jobs_at_once_are_limited_until_one_ends(student_client, course) -> None:
    first, second = post(student_client).json(), post(student_client).json()
    res = post(student_client)
    assert res.status_code == 429
    assert "you have 2 jobs queued or running" in res.json()["detail"]
    Job.objects.filter(id=first["id"]).update(state=Job.State.ENDED, started_at=timezone.now() - timedelta(seconds=5),
                                              ended_at=timezone.now())
    assert post(student_client).status_code == 201
    assert second["id"]


def test_minutes_per_day_count_what_ran_and_what_is_queued(student_client, student, course) -> None:
    now = timezone.now()
    # 8 minutes ran in the last 24 hours (a 10-minute job two days ago no longer counts)
    Job.objects.create(owner=student, code="x", nodes=1, duration=600, state=Job.State.ENDED,
                       started_at=now - timedelta(minutes=9), ended_at=now - timedelta(minutes=1))
    old = Job.objects.create(owner=student, code="x", nodes=1, duration=600, state=Job.State.KILLED,
                             started_at=now - timedelta(days=2), ended_at=now - timedelta(days=2, minutes=-10))
    Job.objects.filter(id=old.id).update(created_at=now - timedelta(days=2))
    assert post(student_client, duration=60).status_code == 201   # queued: its 60 s count, 9 of 10 minutes
    res = post(student_client, duration=120)
    assert res.status_code == 429
    assert "10 minutes of jobs per day: 9.0 used in the last 24 hours, 60 s left" in res.json()["detail"]


def test_the_most_generous_course_counts(student_client, student, course) -> None:
    big = Course.objects.create(name="DS 501", slug="ds-501", max_nodes_per_job=100)
    Membership.objects.create(user=student, course=big, role=Membership.Role.STUDENT)
    assert post(student_client, nodes=100).status_code == 201


def test_staff_of_a_course_and_simulations_are_not_bound(student_client, student, course, teacher_client) -> None:
    assert post(student_client, nodes=500, mode="sim").status_code == 201
    assert post(teacher_client, nodes=500).status_code == 201
    Membership.objects.create(user=student, course=Course.objects.create(name="TA job", slug="ta-job"),
                              role=Membership.Role.TA)
    assert post(student_client, nodes=500).status_code == 201


def test_a_student_in_no_course_has_the_services_limits_only(student_client) -> None:
    assert post(student_client, nodes=1000).status_code == 201
