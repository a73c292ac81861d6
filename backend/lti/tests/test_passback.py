"""AGS grade passback to the test LMS (platform.py): automatic after a real grading, after an
override, retried when the LMS fails, held while hidden checks are not released, and each
cell's state in the gradebook API."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from courses.tests.factories import client_for
from grading.models import Assignment
from grading.services import assignment_load_from_folder, grade_override_set, submission_grade
from grading.tests.factories import REPORT, assignment_make, submission_make
from lti import tasks
from lti.models import GradeSync, LineItem, LmsUser

from .conftest import launch
from .platform import LaunchSpec

CHORD = Path(settings.REPO_DIR) / "assignments" / "chord"


@pytest.fixture
def sent(monkeypatch) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    """grade_send runs in the test (Celery's eager apply, retries included) where it would be queued."""
    calls: list[tuple[int, int]] = []

    def run_now(assignment_id: int, student_id: int) -> None:
        calls.append((assignment_id, student_id))
        tasks.grade_send.apply((assignment_id, student_id))

    monkeypatch.setattr("lti.tasks.grade_send.delay", run_now)
    monkeypatch.setattr("lti.views.roster_sync.delay", lambda context_id: None)
    return calls


def _student(linked, assignment: Assignment):  # type: ignore[no-untyped-def]
    """The LMS's student launches the assignment's link once (account, binding, line item)."""
    item = linked.lms.lineitem_add({"label": assignment.title, "scoreMaximum": 100, "resourceId": assignment.slug})
    answer = launch(Client(), linked.lms, LaunchSpec("u-stud", custom={"assignment": assignment.slug},
                                                     lineitem=item["id"]))
    assert answer.status_code == 302
    assert LineItem.objects.get(assignment=assignment).url == item["id"]
    return LmsUser.objects.get(sub="u-stud").user, item["id"].rsplit("/", 1)[-1]


def test_a_real_grading_sends_its_score_on_its_own(linked, sent, django_capture_on_commit_callbacks) -> None:
    assignment, _ = assignment_load_from_folder(course=linked.course, path=CHORD)
    student, item = _student(linked, assignment)
    submission = submission_make(assignment, student, source="function broken(\n")
    Assignment.objects.filter(id=assignment.id).update(deadline=timezone.now() - timedelta(minutes=1))
    with django_capture_on_commit_callbacks(execute=True):
        submission_grade(submission.id)  # the real grader: a syntax error, graded 0 without running
    assert sent == [(assignment.id, student.id)]
    [score] = linked.lms.scores[item]
    assert (score["userId"], score["scoreGiven"], score["scoreMaximum"]) == ("u-stud", 0.0, 100)
    assert (score["activityProgress"], score["gradingProgress"]) == ("Completed", "FullyGraded")
    checks = len(submission.__class__.objects.get(id=submission.id).report["checks"])
    assert score["comment"] == f"SplayLab: 0 of {checks} checks passed (submission {submission.id}, grading 1)"
    sync = GradeSync.objects.get(assignment=assignment, student=student)
    assert (sync.state, sync.score, sync.submission_id, sync.tries) == ("sent", 0.0, submission.id, 1)
    assert score["timestamp"] == sync.changed_at.isoformat()


def test_an_override_goes_back_and_a_failed_passback_is_retried(linked, sent,
                                                                django_capture_on_commit_callbacks) -> None:
    assignment = assignment_make(linked.course)
    student, item = _student(linked, assignment)
    linked.lms.fail_scores = 1  # the LMS answers 500 once
    with django_capture_on_commit_callbacks(execute=True):
        grade_override_set(assignment=assignment, student=student, by=linked.teacher, score=87.5,
                           comment="great ring, see me about latency")
    assert linked.lms.score_posts == 2  # the first one failed, the retry went through
    [score] = linked.lms.scores[item]
    assert (score["scoreGiven"], score["comment"]) == (87.5, "great ring, see me about latency")
    sync = GradeSync.objects.get(assignment=assignment, student=student)
    assert (sync.state, sync.reason, sync.tries, sync.submission_id) == ("sent", "", 2, None)
    book = client_for(linked.teacher).get(f"/api/courses/{linked.course.id}/gradebook/").json()
    assert book["lms"] == {"linked": True}
    [cell] = book["rows"][0]["cells"]
    assert cell["lms"]["state"] == "sent" and cell["lms"]["score"] == 87.5


def test_a_passback_the_lms_keeps_refusing_ends_failed_with_the_reason(linked, sent, monkeypatch,
                                                                        django_capture_on_commit_callbacks) -> None:
    assignment = assignment_make(linked.course)
    student, _ = _student(linked, assignment)
    monkeypatch.setattr(tasks, "RETRIES", 2)
    monkeypatch.setattr(tasks.grade_send, "max_retries", 2)
    linked.lms.fail_scores = 10
    with django_capture_on_commit_callbacks(execute=True):
        grade_override_set(assignment=assignment, student=student, by=linked.teacher, score=50, comment="")
    assert linked.lms.score_posts == 3
    sync = GradeSync.objects.get(assignment=assignment, student=student)
    assert sync.state == "failed"
    assert sync.reason.startswith("gave up after retries: the LMS answered 500")
    assert "down for maintenance" in sync.reason


def test_a_student_unknown_to_the_lms_fails_at_once_with_why(linked, sent, django_capture_on_commit_callbacks) -> None:
    assignment = assignment_make(linked.course)
    _student(linked, assignment)
    stranger = linked.teacher.__class__.objects.create(username="walk-in")
    linked.course.memberships.create(user=stranger, role="student")
    with django_capture_on_commit_callbacks(execute=True):
        grade_override_set(assignment=assignment, student=stranger, by=linked.teacher, score=70, comment="")
    sync = GradeSync.objects.get(assignment=assignment, student=stranger)
    assert sync.state == "failed" and "walk-in has no account in the LMS course" in sync.reason
    assert linked.lms.score_posts == 0


def test_hidden_checks_hold_the_score_until_the_deadline(linked, sent, django_capture_on_commit_callbacks) -> None:
    deadline = timezone.now() + timedelta(days=2)
    assignment = assignment_make(linked.course, deadline=deadline)
    student, item = _student(linked, assignment)
    submission = submission_make(assignment, student)
    with django_capture_on_commit_callbacks(execute=True):
        submission_grade(submission.id, grade=lambda a, s: REPORT)  # stands in for the grader: hidden check inside
    sync = GradeSync.objects.get(assignment=assignment, student=student)
    assert (sync.state, sync.held) == ("pending", True) and sync.reason.startswith("held until the deadline")
    assert item not in linked.lms.scores
    assert tasks.grades_release() == 0  # beat's sweep: not yet
    Assignment.objects.filter(id=assignment.id).update(deadline=timezone.now() - timedelta(seconds=1))
    assert tasks.grades_release() == 1  # the deadline came
    assert linked.lms.scores[item][0]["scoreGiven"] == 50.0
    assert (GradeSync.objects.get(id=sync.id).state, GradeSync.objects.get(id=sync.id).held) == ("sent", False)


def test_no_lms_no_passback(classroom, django_capture_on_commit_callbacks) -> None:
    assignment = assignment_make(classroom.course)
    with django_capture_on_commit_callbacks(execute=True):
        grade_override_set(assignment=assignment, student=classroom.student, by=classroom.teacher, score=1, comment="")
    assert not GradeSync.objects.exists()


def test_backoff_doubles_from_30_s() -> None:
    assert [tasks.backoff(n) for n in range(4)] == [30, 60, 120, 240]
