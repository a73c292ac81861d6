"""Late days, penalty and final score (grading.services), and the closing of submissions."""
from datetime import timedelta

import pytest
from django.utils import timezone

from grading.models import Submission
from grading.services import (final_score_for, late_days_for, penalty_percent_for, submission_create,
                              submission_grade)
from grading.tests.factories import REPORT, assignment_make
from lib.errors import ApplicationError

DEADLINE = timezone.now().replace(microsecond=0)


@pytest.mark.parametrize("after,days", [
    (timedelta(seconds=-1), 0), (timedelta(0), 0), (timedelta(seconds=1), 1), (timedelta(hours=24), 1),
    (timedelta(hours=24, seconds=1), 2), (timedelta(days=3), 3), (timedelta(days=3, minutes=1), 4),
])
def test_each_started_day_after_the_deadline_counts(after, days) -> None:
    assert late_days_for(deadline=DEADLINE, at=DEADLINE + after) == days


def test_no_deadline_is_never_late() -> None:
    assert late_days_for(deadline=None, at=DEADLINE + timedelta(days=100)) == 0


def test_penalty_is_per_day_and_at_most_everything() -> None:
    assert penalty_percent_for(late_days=2, per_day=10) == 20
    assert penalty_percent_for(late_days=3, per_day=40) == 100


def test_final_score_is_the_score_less_the_penalty_share() -> None:
    assert final_score_for(score=80, penalty_percent=20) == 64
    assert final_score_for(score=87.5, penalty_percent=10) == 78.75
    assert final_score_for(score=100, penalty_percent=100) == 0


def test_a_submission_two_days_late_loses_20_percent(classroom, no_grading) -> None:
    assignment = assignment_make(classroom.course, deadline=timezone.now() - timedelta(days=1, hours=1))
    submission = submission_create(assignment=assignment, student=classroom.student, source="print(1)")
    assert (submission.late_days, submission.penalty_percent) == (2, 20)

    # The grader's score is kept as it is; the final score carries the penalty. The fake grade
    # function stands in for the grader: the arithmetic is what is under test here.
    graded = submission_grade(submission.id, grade=lambda a, s: {**REPORT, "score": 75.0})
    assert (graded.status, graded.score, graded.final_score) == ("graded", 75.0, 60.0)


def test_the_course_policy_decides(classroom, no_grading) -> None:
    classroom.course.late_penalty_percent = 5
    classroom.course.save()
    assignment = assignment_make(classroom.course, deadline=timezone.now() - timedelta(hours=1))
    submission = submission_create(assignment=assignment, student=classroom.student, source="print(1)")
    assert (submission.late_days, submission.penalty_percent) == (1, 5)


def test_after_max_late_days_students_are_refused(classroom, no_grading) -> None:
    deadline = timezone.now() - timedelta(days=3, minutes=5)  # 4th day: max_late_days is 3
    assignment = assignment_make(classroom.course, deadline=deadline)
    with pytest.raises(ApplicationError) as err:
        submission_create(assignment=assignment, student=classroom.student, source="print(1)")
    assert err.value.status_code == 403
    assert err.value.message.startswith("submissions closed at ")
    assert "plus 3 late days" in err.value.message
    # Staff may still submit (to try the assignment), at full penalty.
    submission = submission_create(assignment=assignment, student=classroom.ta, source="print(1)")
    assert (submission.late_days, submission.penalty_percent) == (4, 40)
    assert Submission.objects.filter(student=classroom.student).count() == 0


def test_the_closing_is_a_403_through_the_api(classroom, student_client, no_grading) -> None:
    assignment = assignment_make(classroom.course, deadline=timezone.now() - timedelta(days=5))
    res = student_client.post(f"/api/courses/{classroom.course.id}/assignments/{assignment.slug}/submissions/",
                              {"source": "print(1)"}, format="json")
    assert res.status_code == 403
    assert "submissions closed" in res.json()["detail"]
