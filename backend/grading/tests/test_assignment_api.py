"""GET /api/courses/<id>/assignments/, GET/PATCH /api/courses/<id>/assignments/<slug>/"""
from datetime import timedelta

from django.utils import timezone

from courses.tests.factories import client_for
from grading.tests.factories import SECRET_REFERENCE, assignment_make


def _url(classroom, slug: str = "") -> str:
    return f"/api/courses/{classroom.course.id}/assignments/" + (f"{slug}/" if slug else "")


def test_students_list_published_assignments_only(classroom) -> None:
    assignment_make(classroom.course, "chord")
    assignment_make(classroom.course, "draft", published=False)
    assert [a["slug"] for a in client_for(classroom.student).get(_url(classroom)).json()] == ["chord"]
    assert [a["slug"] for a in client_for(classroom.ta).get(_url(classroom)).json()] == ["chord", "draft"]
    assert client_for(classroom.student).get(_url(classroom, "draft")).status_code == 404


def test_a_student_gets_handout_starter_harness_runs_and_visible_checks_only(classroom) -> None:
    assignment_make(classroom.course)
    res = client_for(classroom.student).get(_url(classroom, "chord"))
    assert res.status_code == 200
    body = res.json()
    assert (body["handout"], body["starter"], body["harness"]) == ("# Chord\nBuild it.", "-- your Chord here\n",
                                                                    "-- the harness\n")
    assert [r["name"] for r in body["runs"]] == ["ring"]
    assert [c["name"] for c in body["checks"]] == ["No errors", "Ring is right"]
    for key in ("reference", "spec", "files", "folder"):
        assert key not in body
    assert SECRET_REFERENCE not in res.content.decode()
    assert "Latency like the reference" not in res.content.decode()
    assert "def secret" not in res.content.decode()


def test_instructors_and_tas_get_the_reference_and_hidden_checks(classroom) -> None:
    deadline = timezone.now() + timedelta(days=7)
    assignment_make(classroom.course, deadline=deadline)
    for user in (classroom.teacher, classroom.ta):
        body = client_for(user).get(_url(classroom, "chord")).json()
        assert body["reference"] == SECRET_REFERENCE
        assert [c["hidden"] for c in body["checks"]] == [False, False, True]
        assert body["files"] == {"checks.py": "def secret(ctx): ...\n"}
        assert (body["late_penalty_percent"], body["max_late_days"]) == (10, 3)
        assert body["closes_at"].startswith((deadline + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M"))


def test_a_course_you_are_not_in_is_a_404(classroom) -> None:
    assignment_make(classroom.course)
    for user in (classroom.outsider, classroom.other_ta):
        assert client_for(user).get(_url(classroom)).status_code == 404
        assert client_for(user).get(_url(classroom, "chord")).status_code == 404


def test_the_instructor_edits_deadline_publication_and_texts(classroom) -> None:
    assignment_make(classroom.course, published=False)
    res = client_for(classroom.teacher).patch(_url(classroom, "chord"), {
        "published": True, "deadline": "2030-01-02T03:04:05Z", "handout": "# New"}, format="json")
    assert res.status_code == 200, res.json()
    assert (res.json()["published"], res.json()["deadline"], res.json()["handout"]) == (
        True, "2030-01-02T03:04:05Z", "# New")
    assert client_for(classroom.student).get(_url(classroom, "chord")).status_code == 200


def test_a_new_spec_is_checked_by_the_grader(classroom) -> None:
    assignment_make(classroom.course)
    bad = {"title": "T", "runs": [{"name": "r"}], "checks": [{"name": "c", "check": "nope"}]}
    res = client_for(classroom.teacher).patch(_url(classroom, "chord"), {"spec": bad}, format="json")
    assert res.status_code == 400
    assert "no library check 'nope'" in res.json()["spec"][0]


def test_tas_and_students_cannot_edit(classroom) -> None:
    assignment_make(classroom.course)
    for user in (classroom.ta, classroom.student):
        res = client_for(user).patch(_url(classroom, "chord"), {"published": False}, format="json")
        assert res.status_code == 403


def test_the_list_carries_your_own_latest_submission_as_you_may_see_it(classroom) -> None:
    from grading.tests.factories import graded_make, submission_make
    a = assignment_make(classroom.course, "chord")
    assignment_make(classroom.course, "gossip")
    graded_make(a, classroom.student, 50.0, created_at=timezone.now() - timedelta(hours=1))
    latest = submission_make(a, classroom.student, status="graded", score=50.0, final_score=50.0,
                             report={"score": 50.0, "score_visible": 100.0, "checks": []})
    submission_make(a, classroom.other_student)
    rows = {r["slug"]: r["my_latest"] for r in client_for(classroom.student).get(_url(classroom)).json()}
    # before the deadline a student's score counts the visible checks only
    assert rows == {"chord": {"id": latest.id, "status": "graded", "final_score": 100.0}, "gossip": None}
    staff_rows = {r["slug"]: r["my_latest"] for r in client_for(classroom.teacher).get(_url(classroom)).json()}
    assert staff_rows == {"chord": None, "gossip": None}   # their own, not the students'
