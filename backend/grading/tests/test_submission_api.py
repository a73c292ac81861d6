"""POST/GET /api/courses/<id>/assignments/<slug>/submissions/, GET /api/submissions/<id>/"""
from datetime import timedelta

from django.utils import timezone

from courses.tests.factories import client_for
from grading.models import Assignment, Submission
from grading.tests.factories import REPORT, assignment_make, graded_make, submission_make


def _url(classroom, slug: str = "chord") -> str:
    return f"/api/courses/{classroom.course.id}/assignments/{slug}/submissions/"


def test_a_student_submits_and_the_grading_is_queued(classroom, no_grading, django_capture_on_commit_callbacks) -> None:
    assignment_make(classroom.course)
    with django_capture_on_commit_callbacks(execute=True):
        res = client_for(classroom.student).post(_url(classroom), {"source": "print(1)\n"}, format="json")
    assert res.status_code == 201
    body = res.json()
    assert (body["status"], body["student"], body["source"], body["late_days"], body["score"]) == (
        "queued", "student", "print(1)\n", 0, None)
    assert no_grading == [body["id"]]


def test_submissions_cannot_be_changed(classroom) -> None:
    submission = graded_make(assignment_make(classroom.course), classroom.student, 50)
    client = client_for(classroom.student)
    for method in (client.put, client.patch, client.delete):
        assert method(f"/api/submissions/{submission.id}/", {"source": "x"}, format="json").status_code == 405
    submission.refresh_from_db()
    assert submission.source == "print('mine')\n"


def test_a_student_sees_only_their_own_submissions(classroom) -> None:
    assignment = assignment_make(classroom.course)
    mine = graded_make(assignment, classroom.student, 50)
    theirs = graded_make(assignment, classroom.other_student, 90)
    client = client_for(classroom.student)
    assert [s["id"] for s in client.get(_url(classroom)).json()] == [mine.id]
    assert [s["id"] for s in client.get(_url(classroom) + f"?student={theirs.student_id}").json()] == [mine.id]
    assert client.get(f"/api/submissions/{theirs.id}/").status_code == 404
    staff = client_for(classroom.ta)
    assert sorted(s["id"] for s in staff.get(_url(classroom)).json()) == [mine.id, theirs.id]
    assert [s["id"] for s in staff.get(_url(classroom) + f"?student={theirs.student_id}").json()] == [theirs.id]
    assert staff.get(f"/api/submissions/{theirs.id}/").json()["source"] == "print('mine')\n"


def test_outside_the_course_submissions_are_404(classroom) -> None:
    assignment = assignment_make(classroom.course)
    submission = graded_make(assignment, classroom.student, 50)
    for user in (classroom.outsider, classroom.other_ta):
        client = client_for(user)
        assert client.get(f"/api/submissions/{submission.id}/").status_code == 404
        assert client.get(_url(classroom)).status_code == 404
        assert client.post(_url(classroom), {"source": "x = 1"}, format="json").status_code == 404
    assert Submission.objects.count() == 1


def test_an_unpublished_assignment_takes_no_student_submission(classroom, no_grading) -> None:
    assignment_make(classroom.course, published=False)
    assert client_for(classroom.student).post(_url(classroom), {"source": "x = 1"}, format="json").status_code == 404
    assert client_for(classroom.ta).post(_url(classroom), {"source": "x = 1"}, format="json").status_code == 201


def test_before_the_deadline_students_see_visible_checks_and_their_score_only(classroom) -> None:
    assignment = assignment_make(classroom.course, deadline=timezone.now() + timedelta(days=1))
    submission = graded_make(assignment, classroom.student, 50.0)
    res = client_for(classroom.student).get(f"/api/submissions/{submission.id}/")
    body = res.json()
    assert [c["name"] for c in body["report"]["checks"]] == ["No errors", "Ring is right"]
    assert (body["score"], body["final_score"], body["report"]["score"], body["hidden_withheld"]) == (
        100.0, 100.0, 100.0, 1)
    assert "score_visible" not in body["report"]
    assert "Latency" not in res.content.decode() and "reference's (at most" not in res.content.decode()
    listed = client_for(classroom.student).get(_url(classroom)).json()[0]
    assert (listed["score"], listed["hidden_withheld"]) == (100.0, 1)
    # Staff see everything, and the score counting every check.
    body = client_for(classroom.ta).get(f"/api/submissions/{submission.id}/").json()
    assert (body["score"], len(body["report"]["checks"]), body["hidden_withheld"]) == (50.0, 3, 0)


def test_after_the_deadline_students_see_every_check(classroom) -> None:
    assignment = assignment_make(classroom.course, deadline=timezone.now() + timedelta(days=1))
    submission = graded_make(assignment, classroom.student, 50.0)
    Assignment.objects.filter(id=assignment.id).update(deadline=timezone.now() - timedelta(seconds=1))
    body = client_for(classroom.student).get(f"/api/submissions/{submission.id}/").json()
    assert (body["score"], len(body["report"]["checks"]), body["hidden_withheld"]) == (50.0, 3, 0)


def test_without_a_deadline_hidden_checks_stay_hidden(classroom) -> None:
    submission = graded_make(assignment_make(classroom.course), classroom.student, 50.0)
    body = client_for(classroom.student).get(f"/api/submissions/{submission.id}/").json()
    assert (body["score"], body["hidden_withheld"]) == (100.0, 1)


def test_students_see_that_the_grader_failed_not_its_internals(classroom) -> None:
    submission = submission_make(assignment_make(classroom.course), classroom.student, status="error",
                                 error="FileNotFoundError: /srv/secret/reference.lua")
    body = client_for(classroom.student).get(f"/api/submissions/{submission.id}/").json()
    assert body["error"].startswith("grading failed (the grader's fault")
    assert "secret" not in body["error"]
    body = client_for(classroom.teacher).get(f"/api/submissions/{submission.id}/").json()
    assert body["error"] == "FileNotFoundError: /srv/secret/reference.lua"


def test_the_history_of_regrades_is_for_staff(classroom) -> None:
    submission = graded_make(assignment_make(classroom.course), classroom.student, 50.0)
    Submission.objects.filter(id=submission.id).update(history=[{"attempt": 1, "report": REPORT}])
    assert "history" not in client_for(classroom.student).get(f"/api/submissions/{submission.id}/").json()
    assert len(client_for(classroom.ta).get(f"/api/submissions/{submission.id}/").json()["history"]) == 1


def test_an_empty_or_huge_source_is_refused(classroom, no_grading) -> None:
    assignment_make(classroom.course)
    client = client_for(classroom.student)
    assert client.post(_url(classroom), {"source": "  \n"}, format="json").json() == {
        "source": ["the submission is empty"]}
    assert client.post(_url(classroom), {"source": "-" * (256 * 1024 + 1)}, format="json").status_code == 400
    assert Submission.objects.count() == 0
