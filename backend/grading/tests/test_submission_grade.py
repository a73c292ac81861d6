"""grading.services.submission_grade and the task grading.tasks.submission_grade.

Most tests pass `grade=` (a stand-in for the grader that returns a report dict): they are
about what the service does around grading (claiming, storing, penalties, failures), and a
real grading runs simulations. The last ones use the real grader on assignments/chord."""
import hashlib
from pathlib import Path

from django.conf import settings

from grading.models import Submission
from grading.services import assignment_load_from_folder, submission_create, submission_grade
from grading.tasks import submission_grade as submission_grade_task
from grading.tests.factories import REPORT, assignment_make, submission_make

CHORD = Path(settings.REPO_DIR) / "assignments" / "chord"


def test_a_queued_submission_is_graded_and_its_report_kept(classroom) -> None:
    submission = submission_make(assignment_make(classroom.course), classroom.student)
    seen = []

    def fake_grade(assignment, source):  # stands in for the grader
        seen.append((assignment.slug, source))
        return REPORT

    graded = submission_grade(submission.id, grade=fake_grade)
    assert seen == [("chord", "print('mine')\n")]
    assert (graded.status, graded.score, graded.final_score, graded.error) == ("graded", 50.0, 50.0, "")
    assert graded.report == REPORT
    assert graded.started_at is not None and graded.graded_at >= graded.started_at


def test_only_a_queued_submission_is_claimed(classroom) -> None:
    submission = submission_make(assignment_make(classroom.course), classroom.student,
                                 status=Submission.Status.RUNNING)
    assert submission_grade(submission.id, grade=lambda a, s: REPORT) is None
    submission.refresh_from_db()
    assert (submission.status, submission.report) == ("running", {})


def test_a_failing_grader_ends_in_error_with_its_message(classroom) -> None:
    submission = submission_make(assignment_make(classroom.course), classroom.student)

    def broken(assignment, source):  # stands in for a grader that crashes
        raise RuntimeError("the simulator died")

    graded = submission_grade(submission.id, grade=broken)
    assert (graded.status, graded.score, graded.error) == ("error", None, "RuntimeError: the simulator died")


def test_a_result_for_a_superseded_attempt_is_dropped(classroom) -> None:
    submission = submission_make(assignment_make(classroom.course), classroom.student)

    def regraded_meanwhile(assignment, source):  # a regrade lands while this grading runs
        Submission.objects.filter(id=submission.id).update(status="queued", attempt=2)
        return REPORT

    submission_grade(submission.id, grade=regraded_meanwhile)
    submission.refresh_from_db()
    assert (submission.status, submission.attempt, submission.score) == ("queued", 2, None)


def test_create_enqueues_the_task_on_commit(classroom, no_grading, django_capture_on_commit_callbacks) -> None:
    assignment = assignment_make(classroom.course)
    with django_capture_on_commit_callbacks(execute=True):
        submission = submission_create(assignment=assignment, student=classroom.student, source="x = 1\n")
    assert no_grading == [submission.id]
    assert submission.sha256 == hashlib.sha256(b"x = 1\n").hexdigest()
    assert submission.status == "queued"


def test_the_real_grader_grades_the_chord_starter_low(classroom) -> None:
    """End to end with the grader (grading.grader) on assignments/chord: the starter ring
    never forms, so the ring checks fail with their reason (a simulation of a few seconds;
    the reference's records come from var/grading-cache after the first time)."""
    assignment, _ = assignment_load_from_folder(course=classroom.course, path=CHORD)
    starter = (CHORD / "starter" / "app.lua").read_text()
    submission = submission_make(assignment, classroom.student, source=starter)
    submission_grade_task(submission.id)
    submission.refresh_from_db()
    assert submission.status == "graded", submission.error
    assert 0 <= submission.score < 50
    checks = {c["name"]: c for c in submission.report["checks"]}
    assert checks["Every successor is right"]["passed"] is False
    assert "right successor" in checks["Every successor is right"]["message"]
    assert checks["Lookup latency close to the reference's"]["hidden"] is True
    assert submission.report["submission_sha256"] == submission.sha256


def test_the_real_grader_reports_a_syntax_error_without_running(classroom) -> None:
    assignment, _ = assignment_load_from_folder(course=classroom.course, path=CHORD)
    submission = submission_make(assignment, classroom.student, source="function broken(\n")
    submission_grade_task(submission.id)
    submission.refresh_from_db()
    assert (submission.status, submission.score, submission.final_score) == ("graded", 0.0, 0.0)
    assert submission.report["compile_error"]
    assert all(not c["passed"] for c in submission.report["checks"])
