"""submission_regrade / assignment_regrade and their APIs: the same immutable source graded
again; the previous result kept in history."""
from datetime import timedelta

from django.utils import timezone

from courses.tests.factories import client_for
from grading.models import Submission
from grading.services import assignment_regrade, submission_grade, submission_regrade
from grading.tests.factories import REPORT, assignment_make, graded_make, submission_make


def test_a_regrade_keeps_the_old_result_in_history_and_grades_again(classroom, no_grading) -> None:
    submission = graded_make(assignment_make(classroom.course), classroom.student, 50.0)
    assert submission_regrade(submission_id=submission.id) is True
    submission.refresh_from_db()
    assert (submission.status, submission.attempt, submission.score, submission.report) == ("queued", 2, None, {})
    assert [(h["attempt"], h["status"], h["score"]) for h in submission.history] == [(1, "graded", 50.0)]
    # The grader after a spec change (a stand-in: the service's bookkeeping is under test).
    regraded = submission_grade(submission.id, grade=lambda a, s: {**REPORT, "score": 90.0})
    assert (regraded.status, regraded.score, regraded.source) == ("graded", 90.0, "print('mine')\n")
    assert regraded.history[0]["report"]["score"] == 50.0


def test_a_queued_submission_is_left_alone(classroom, no_grading) -> None:
    submission = submission_make(assignment_make(classroom.course), classroom.student)
    assert submission_regrade(submission_id=submission.id) is False
    submission.refresh_from_db()
    assert (submission.attempt, submission.history) == (1, [])


def test_a_regrade_applies_the_current_deadline(classroom, no_grading) -> None:
    assignment = assignment_make(classroom.course, deadline=timezone.now() - timedelta(days=2, hours=1))
    submission = graded_make(assignment, classroom.student, 80.0, late_days=1, penalty_percent=10,
                             created_at=assignment.deadline + timedelta(hours=1))
    assignment.deadline += timedelta(days=1)  # extended: the submission was on time after all
    assignment.save()
    submission_regrade(submission_id=submission.id)
    graded = submission_grade(submission.id, grade=lambda a, s: {**REPORT, "score": 80.0})
    assert (graded.late_days, graded.penalty_percent, graded.final_score) == (0, 0, 80.0)


def test_regrade_all_queues_every_submission_of_the_assignment(classroom, no_grading) -> None:
    assignment, other = assignment_make(classroom.course), assignment_make(classroom.course, slug="cyclon")
    graded_make(assignment, classroom.student, 10.0)
    graded_make(assignment, classroom.other_student, 20.0)
    graded_make(other, classroom.student, 30.0)
    assert assignment_regrade(assignment=assignment) == 2
    assert sorted(Submission.objects.values_list("assignment__slug", "status")) == [
        ("chord", "queued"), ("chord", "queued"), ("cyclon", "graded")]


def test_staff_regrade_through_the_api_students_cannot(classroom, no_grading, django_capture_on_commit_callbacks) -> None:
    assignment = assignment_make(classroom.course)
    submission = graded_make(assignment, classroom.student, 10.0)
    course = classroom.course.id
    assert client_for(classroom.student).post(f"/api/submissions/{submission.id}/regrade/").status_code == 403
    assert client_for(classroom.student).post(
        f"/api/courses/{course}/assignments/chord/regrade/").status_code == 403
    assert client_for(classroom.other_ta).post(f"/api/submissions/{submission.id}/regrade/").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        res = client_for(classroom.ta).post(f"/api/submissions/{submission.id}/regrade/")
    assert (res.status_code, res.json()["status"], res.json()["attempt"]) == (202, "queued", 2)
    assert len(res.json()["history"]) == 1
    assert no_grading == [submission.id]
    Submission.objects.filter(id=submission.id).update(status="graded")
    res = client_for(classroom.teacher).post(f"/api/courses/{course}/assignments/chord/regrade/")
    assert (res.status_code, res.json()) == (202, {"queued": 1})
