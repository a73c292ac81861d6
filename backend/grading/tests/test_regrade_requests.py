"""Regrade requests: a student asks with a message, staff see the course's open ones and answer
(with or without a regrade), the student reads the answer."""
from __future__ import annotations

from courses.tests.factories import client_for
from grading.models import RegradeRequest, Submission
from grading.tests.factories import assignment_make, graded_make, submission_make


def test_a_student_asks_staff_answer_with_a_regrade_the_student_reads_it(classroom, no_grading,
                                                                         django_capture_on_commit_callbacks) -> None:
    submission = graded_make(assignment_make(classroom.course), classroom.student, 40.0)
    url = f"/api/submissions/{submission.id}/regrade-requests/"
    asked = client_for(classroom.student).post(url, {"message": "my ring is right, the check timed out"}, format="json")
    assert asked.status_code == 201 and asked.json()["state"] == "open"
    again = client_for(classroom.student).post(url, {"message": "please"}, format="json")
    assert again.status_code == 409 and "already has an open regrade request" in again.json()["detail"]
    listing = client_for(classroom.ta).get(f"/api/courses/{classroom.course.id}/regrade-requests/?state=open").json()
    assert [(r["student"], r["message"]) for r in listing] == [("student", "my ring is right, the check timed out")]
    with django_capture_on_commit_callbacks(execute=True):
        answered = client_for(classroom.ta).post(f"/api/regrade-requests/{listing[0]['id']}/answer/",
                                                 {"answer": "regrading with the new timeout", "regrade": True},
                                                 format="json")
    assert answered.status_code == 200
    assert (answered.json()["state"], answered.json()["regraded"], answered.json()["answered_by"]) == ("answered", True, "tara")
    assert no_grading == [submission.id]  # queued for grading again
    assert Submission.objects.get(id=submission.id).attempt == 2
    mine = client_for(classroom.student).get(url).json()
    assert mine[0]["answer"] == "regrading with the new timeout"
    twice = client_for(classroom.teacher).post(f"/api/regrade-requests/{listing[0]['id']}/answer/",
                                               {"answer": "no"}, format="json")
    assert twice.status_code == 409


def test_who_may_ask_and_answer(classroom) -> None:
    assignment = assignment_make(classroom.course)
    graded = graded_make(assignment, classroom.student, 40.0)
    queued = submission_make(assignment, classroom.other_student)
    url = f"/api/submissions/{graded.id}/regrade-requests/"
    assert client_for(classroom.other_student).post(url, {"message": "mine?"}, format="json").status_code == 404
    assert client_for(classroom.ta).post(url, {"message": "as staff"}, format="json").status_code == 403
    assert client_for(classroom.student).post(url, {"message": "   "}, format="json").status_code == 400
    pending = client_for(classroom.other_student).post(f"/api/submissions/{queued.id}/regrade-requests/",
                                                       {"message": "too early"}, format="json")
    assert pending.status_code == 400 and "still being graded" in pending.json()["detail"]
    created = RegradeRequest.objects.create(submission=graded, student=classroom.student, message="look")
    answer = f"/api/regrade-requests/{created.id}/answer/"
    assert client_for(classroom.student).post(answer, {"answer": "self-serve"}, format="json").status_code == 403
    assert client_for(classroom.other_ta).post(answer, {"answer": "not my course"}, format="json").status_code == 404
    assert client_for(classroom.student).get(f"/api/courses/{classroom.course.id}/regrade-requests/").status_code == 403
    kept = client_for(classroom.teacher).post(answer, {"answer": "the check is right: see its message"}, format="json")
    assert kept.json()["regraded"] is False and RegradeRequest.objects.get(id=created.id).state == "answered"
