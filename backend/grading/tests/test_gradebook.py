"""GET /api/courses/<id>/gradebook/, PUT/DELETE .../gradebook/<slug>/<student>/, gradebook.csv"""
import csv
import io
from datetime import timedelta

from django.utils import timezone

from accounts.tests.factories import user_make
from courses.tests.factories import client_for, member_add
from grading.models import GradeOverride
from grading.tests.factories import assignment_make, graded_make, submission_make


def _book(classroom, user=None):
    return client_for(user or classroom.teacher).get(f"/api/courses/{classroom.course.id}/gradebook/")


def _cells(body: dict) -> dict:
    return {(row["student"]["username"], cell["assignment"]): cell for row in body["rows"] for cell in row["cells"]}


def test_rows_are_students_columns_assignments_and_the_latest_graded_submission_counts(classroom) -> None:
    chord = assignment_make(classroom.course)
    assignment_make(classroom.course, slug="cyclon", published=False)
    now = timezone.now()
    graded_make(chord, classroom.student, 90.0, created_at=now - timedelta(hours=3))
    latest = graded_make(chord, classroom.student, 60.0, created_at=now - timedelta(hours=2), late_days=1,
                         penalty_percent=10)
    submission_make(chord, classroom.student, created_at=now - timedelta(hours=1))  # queued: not yet
    submission_make(chord, classroom.student, status="error", created_at=now)       # failed: never
    graded_make(chord, classroom.ta, 100.0)  # staff are not rows
    res = _book(classroom)
    assert res.status_code == 200
    body = res.json()
    assert [a["slug"] for a in body["assignments"]] == ["chord", "cyclon"]
    assert [row["student"]["username"] for row in body["rows"]] == ["alice", "student"]
    cell = _cells(body)[("student", "chord")]
    assert (cell["score"], cell["source"], cell["submissions"]) == (54.0, "submission", 4)
    assert cell["submission"]["id"] == latest.id and cell["submission"]["late_days"] == 1
    assert _cells(body)[("alice", "chord")] == {"assignment": "chord", "score": None, "source": None,
                                                 "submissions": 0, "submission": None, "override": None,
                                                 "lms": None}  # never sent to an LMS (lti.selectors)


def test_an_override_wins_and_a_comment_alone_keeps_the_score(classroom) -> None:
    assignment_make(classroom.course)
    graded_make(classroom.course.assignments.get(), classroom.student, 70.0)
    url = f"/api/courses/{classroom.course.id}/gradebook/chord/{classroom.student.id}/"
    res = client_for(classroom.ta).put(url, {"score": 85, "comment": "fixed by hand: the run was unlucky"},
                                       format="json")
    assert res.status_code == 200, res.json()
    assert (res.json()["score"], res.json()["source"]) == (85.0, "override")
    assert res.json()["override"]["by"] == "tara"
    assert res.json()["override"]["comment"] == "fixed by hand: the run was unlucky"
    res = client_for(classroom.teacher).put(url, {"score": None, "comment": "see me"}, format="json")
    assert (res.json()["score"], res.json()["source"], res.json()["override"]["comment"]) == (70.0, "submission",
                                                                                            "see me")
    assert client_for(classroom.teacher).delete(url).status_code == 204
    assert not GradeOverride.objects.exists()
    assert client_for(classroom.teacher).put(url, {"score": 101}, format="json").status_code == 400


def test_only_the_course_instructors_and_tas_see_it(classroom) -> None:
    assignment_make(classroom.course)
    graded_make(classroom.course.assignments.get(), classroom.other_student, 70.0)
    course = classroom.course.id
    for user in (classroom.student, classroom.other_student):
        client = client_for(user)
        assert client.get(f"/api/courses/{course}/gradebook/").status_code == 403
        assert client.get(f"/api/courses/{course}/gradebook.csv").status_code == 403
        res = client.put(f"/api/courses/{course}/gradebook/chord/{classroom.other_student.id}/", {"score": 100},
                         format="json")
        assert res.status_code == 403
    for user in (classroom.other_ta, classroom.outsider):  # another course's TA and student
        client = client_for(user)
        assert client.get(f"/api/courses/{course}/gradebook/").status_code == 404
        assert client.get(f"/api/courses/{course}/gradebook.csv").status_code == 404
        res = client.put(f"/api/courses/{course}/gradebook/chord/{classroom.student.id}/", {"score": 100},
                         format="json")
        assert res.status_code == 404
    assert not GradeOverride.objects.exists()
    assert _book(classroom, classroom.ta).status_code == 200


def test_overrides_are_for_the_course_students_only(classroom) -> None:
    assignment_make(classroom.course)
    base = f"/api/courses/{classroom.course.id}/gradebook/chord/"
    client = client_for(classroom.teacher)
    assert client.put(f"{base}{classroom.outsider.id}/", {"score": 1}, format="json").status_code == 404
    assert client.put(f"{base}{classroom.ta.id}/", {"score": 1}, format="json").status_code == 404
    assert client.put(f"/api/courses/{classroom.course.id}/gradebook/nope/{classroom.student.id}/", {"score": 1},
                      format="json").status_code == 404


def test_the_csv_has_a_row_per_student_a_column_per_assignment_then_per_check(classroom) -> None:
    chord, cyclon = assignment_make(classroom.course), assignment_make(classroom.course, slug="cyclon")
    graded_make(chord, classroom.student, 87.5)
    graded_make(cyclon, classroom.other_student, 40.0)
    GradeOverride.objects.create(assignment=cyclon, student=classroom.student, score=100, by=classroom.teacher)
    sneaky = user_make("=cmd", first_name="@SUM(A1)", email="x@example.org")
    member_add(classroom.course, sneaky)
    res = client_for(classroom.ta).get(f"/api/courses/{classroom.course.id}/gradebook.csv")
    assert res.status_code == 200
    assert res["Content-Type"] == "text/csv; charset=utf-8"
    assert res["Content-Disposition"] == 'attachment; filename="ds-gradebook.csv"'
    rows = list(csv.reader(io.StringIO(res.content.decode())))
    checks = ["No errors", "Ring is right", "Latency like the reference's"]  # REPORT's points: 20, 30, 0
    assert rows == [["username", "name", "email", "chord", "cyclon",
                     *[f"chord: {c}" for c in checks], *[f"cyclon: {c}" for c in checks]],
                    ["'=cmd", "'@SUM(A1)", "x@example.org", "", "", "", "", "", "", "", ""],
                    ["alice", "", "", "", "40", "", "", "", "20", "30", "0"],
                    ["student", "", "", "87.5", "100", "20", "30", "0", "", "", ""]]
