"""Submissions per student and assignment: one per 60 s, 30 in any 24 hours (429 otherwise)."""
from datetime import timedelta

from django.utils import timezone

from grading.models import Submission
from grading.tests.factories import assignment_make, submission_make


def _url(classroom, slug: str = "chord") -> str:
    return f"/api/courses/{classroom.course.id}/assignments/{slug}/submissions/"


def test_a_second_submission_within_a_minute_is_a_429_saying_when(classroom, student_client, no_grading) -> None:
    assignment_make(classroom.course)
    assert student_client.post(_url(classroom), {"source": "print(1)"}, format="json").status_code == 201
    res = student_client.post(_url(classroom), {"source": "print(2)"}, format="json")
    assert res.status_code == 429
    detail = res.json()["detail"]
    assert detail.startswith("at most one submission every 60 s: the next submission is allowed at ")
    assert detail.endswith(" s)") and " UTC (in " in detail
    assert 55 <= int(res["Retry-After"]) <= 60
    assert Submission.objects.count() == 1


def test_a_minute_later_it_is_allowed(classroom, student_client, no_grading) -> None:
    assignment = assignment_make(classroom.course)
    submission_make(assignment, classroom.student, created_at=timezone.now() - timedelta(seconds=61))
    assert student_client.post(_url(classroom), {"source": "print(2)"}, format="json").status_code == 201


def test_thirty_a_day_then_wait_for_the_oldest_to_age(classroom, student_client, no_grading) -> None:
    assignment = assignment_make(classroom.course)
    now = timezone.now()
    for i in range(30):  # the oldest 23 h ago, then one every 2 minutes
        submission_make(assignment, classroom.student, created_at=now - timedelta(hours=23) + timedelta(minutes=2 * i))
    Submission.objects.filter(student=classroom.student).update(
        created_at=now - timedelta(hours=23))  # all old enough for the per-minute rule
    res = student_client.post(_url(classroom), {"source": "print(31)"}, format="json")
    assert res.status_code == 429
    assert res.json()["detail"].startswith("at most 30 submissions of an assignment in 24 hours: "
                                           "the next submission is allowed at ")
    assert res.json()["detail"].endswith("(in 60 min)")
    assert 3590 <= int(res["Retry-After"]) <= 3600


def test_the_limit_is_per_student_and_assignment(classroom, student_client, other_client, no_grading) -> None:
    assignment_make(classroom.course)
    assignment_make(classroom.course, slug="cyclon")
    assert student_client.post(_url(classroom), {"source": "print(1)"}, format="json").status_code == 201
    assert student_client.post(_url(classroom, "cyclon"), {"source": "print(1)"}, format="json").status_code == 201
    assert other_client.post(_url(classroom), {"source": "print(1)"}, format="json").status_code == 201


def test_the_limits_are_settings(classroom, student_client, settings, no_grading) -> None:
    settings.SPLAYLAB_SUBMISSION_INTERVAL = 0
    settings.SPLAYLAB_SUBMISSIONS_PER_DAY = 2
    assignment_make(classroom.course)
    codes = [student_client.post(_url(classroom), {"source": "x = 1"}, format="json").status_code for _ in range(3)]
    assert codes == [201, 201, 429]
