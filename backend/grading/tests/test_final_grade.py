"""The final grade a student sees (their submission's report, the course's assignment list) is the
gradebook's cell: no override, an override, a late penalty; withheld while it counts hidden checks."""
from datetime import timedelta

from django.utils import timezone

from courses.tests.factories import client_for
from grading.models import GradeOverride, Submission
from grading.tests.factories import REPORT, assignment_make, graded_make, submission_make


def _cell(classroom, student, slug="chord") -> dict:
    body = client_for(classroom.teacher).get(f"/api/courses/{classroom.course.id}/gradebook/").json()
    row = next(r for r in body["rows"] if r["student"]["id"] == student.id)
    return next(c for c in row["cells"] if c["assignment"] == slug)


def _seen(classroom, student, submission) -> tuple[dict, dict]:
    """What the student reads: the report's final grade, and the assignment list's."""
    client = client_for(student)
    detail = client.get(f"/api/submissions/{submission.id}/").json()["final_grade"]
    listed = next(a for a in client.get(f"/api/courses/{classroom.course.id}/assignments/").json()
                  if a["slug"] == "chord")["my_grade"]
    return detail, listed


def test_without_an_override_the_student_sees_the_gradebook_score(classroom) -> None:
    chord = assignment_make(classroom.course, deadline=timezone.now() - timedelta(hours=1))
    graded_make(chord, classroom.student, 40.0, created_at=timezone.now() - timedelta(days=2))
    latest = graded_make(chord, classroom.student, 70.0, created_at=timezone.now() - timedelta(days=1))
    cell = _cell(classroom, classroom.student)
    detail, listed = _seen(classroom, classroom.student, latest)
    assert cell["score"] == 70.0
    assert detail == listed == {"score": 70.0, "source": "submission", "submission": latest.id, "override": None,
                                "hidden_withheld": 0}
    report = client_for(classroom.student).get(f"/api/submissions/{latest.id}/").json()
    assert report["final_score"] == cell["score"]


def test_with_an_override_the_student_sees_its_score_and_comment(classroom) -> None:
    chord = assignment_make(classroom.course)   # no deadline: hidden checks never shown, the override is
    submission = graded_make(chord, classroom.student, 50.0)
    url = f"/api/courses/{classroom.course.id}/gradebook/chord/{classroom.student.id}/"
    res = client_for(classroom.ta).put(url, {"score": 85, "comment": "the run was unlucky"}, format="json")
    assert res.status_code == 200
    cell = _cell(classroom, classroom.student)
    detail, listed = _seen(classroom, classroom.student, submission)
    assert cell["score"] == detail["score"] == listed["score"] == 85.0
    assert detail["source"] == "override"
    assert (detail["override"]["comment"], detail["override"]["by"]) == ("the run was unlucky", "tara")
    assert detail == listed


def test_with_a_late_penalty_the_student_sees_the_penalised_gradebook_score(classroom) -> None:
    chord = assignment_make(classroom.course, deadline=timezone.now() - timedelta(days=2))
    submission = graded_make(chord, classroom.student, 60.0, late_days=1, penalty_percent=10)
    cell = _cell(classroom, classroom.student)
    detail, listed = _seen(classroom, classroom.student, submission)
    assert cell["score"] == detail["score"] == listed["score"] == 54.0
    body = client_for(classroom.student).get(f"/api/submissions/{submission.id}/").json()
    assert (body["score"], body["final_score"]) == (60.0, 54.0)


def test_a_grade_counting_hidden_checks_is_withheld_not_shown_different(classroom) -> None:
    chord = assignment_make(classroom.course, deadline=timezone.now() + timedelta(days=1))
    submission = graded_make(chord, classroom.student, 50.0)   # visible checks 100, all checks 50
    assert _cell(classroom, classroom.student)["score"] == 50.0
    detail, listed = _seen(classroom, classroom.student, submission)
    assert detail == listed == {"score": None, "source": "submission", "submission": submission.id,
                                "override": None, "hidden_withheld": 1}
    # a comment-only override does not reveal it either
    GradeOverride.objects.create(assignment=chord, student=classroom.student, score=None, comment="see me",
                                 by=classroom.teacher)
    detail, _ = _seen(classroom, classroom.student, submission)
    assert (detail["score"], detail["override"]["comment"], detail["hidden_withheld"]) == (None, "see me", 1)
    # staff read the gradebook's score on the same page
    staff = client_for(classroom.ta).get(f"/api/submissions/{submission.id}/").json()["final_grade"]
    assert (staff["score"], staff["hidden_withheld"]) == (50.0, 0)


def test_without_hidden_checks_no_deadline_needed(classroom) -> None:
    chord = assignment_make(classroom.course)
    visible = [c for c in REPORT["checks"] if not c["hidden"]]
    submission = graded_make(chord, classroom.student, 100.0)
    Submission.objects.filter(id=submission.id).update(report={**REPORT, "checks": visible, "score": 100.0})
    detail, listed = _seen(classroom, classroom.student, submission)
    assert _cell(classroom, classroom.student)["score"] == detail["score"] == listed["score"] == 100.0


def test_nothing_graded_yet_and_staff_lists_have_no_grade(classroom) -> None:
    assignment_make(classroom.course)
    listed = client_for(classroom.student).get(f"/api/courses/{classroom.course.id}/assignments/").json()[0]
    assert listed["my_grade"] == {"score": None, "source": None, "submission": None, "override": None,
                                  "hidden_withheld": 0}
    staff = client_for(classroom.ta).get(f"/api/courses/{classroom.course.id}/assignments/").json()[0]
    assert staff["my_grade"] is None


def test_polling_a_submission_reads_the_grade_in_few_queries(classroom, django_assert_max_num_queries) -> None:
    """A class polls its submissions while they are graded: the detail reads the final grade
    from the assignment's own column (its report with it), and the course once, without its
    daemons. 7 queries: the submission, the course and role, then the gradebook's column
    (assignment, student, latest graded with its report, count, override)."""
    chord = assignment_make(classroom.course, deadline=timezone.now() + timedelta(days=1))
    assignment_make(classroom.course, slug="cyclon")   # another column: not read
    graded_make(chord, classroom.student, 50.0)
    pending = submission_make(chord, classroom.student)
    client = client_for(classroom.student)
    with django_assert_max_num_queries(7):
        body = client.get(f"/api/submissions/{pending.id}/").json()
    assert (body["status"], body["final_grade"]["hidden_withheld"], body["final_grade"]["score"]) == ("queued", 1, None)
    with django_assert_max_num_queries(3):
        assert client.get(f"/api/courses/{classroom.course.id}/assignments/chord/submissions/").status_code == 200
