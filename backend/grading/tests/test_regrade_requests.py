"""Regrade requests: a student asks with a message, staff see the course's open ones and answer
(with or without a regrade), the student reads the answer."""
from __future__ import annotations

import threading

import pytest
from django.db import connections

from courses.tests.factories import client_for
from grading import regrade_requests
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


@pytest.mark.django_db(transaction=True)
def test_a_double_click_asks_once_and_the_second_is_told_so(classroom, monkeypatch) -> None:
    """Two asks at once (a double click): both pass the one-open-request check before either
    inserts; the second must be told what an ask after the first is told, not the unique index's name."""
    submission = graded_make(assignment_make(classroom.course), classroom.student, 40.0)
    gate = threading.Barrier(2, timeout=20)
    text = regrade_requests._text

    def text_together(value: str, field: str) -> str:  # after the checks, right before the insert
        gate.wait()
        return text(value, field)

    monkeypatch.setattr(regrade_requests, "_text", text_together)
    answers: list[tuple[int, str]] = []

    def ask() -> None:
        try:
            url = f"/api/submissions/{submission.id}/regrade-requests/"
            answer = client_for(classroom.student).post(url, {"message": "look"}, format="json")
            answers.append((answer.status_code, answer.json().get("detail", "")))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(code for code, _ in answers) == [201, 409]
    assert dict(answers)[409] == "this submission already has an open regrade request"
    assert RegradeRequest.objects.filter(submission=submission).count() == 1
