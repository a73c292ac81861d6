"""GET /api/workspaces/"""
from courses.tests.factories import course_with
from workspaces.models import Workspace


def test_first_get_creates_a_default_workspace_with_app_lua(student_client, student) -> None:
    res = student_client.get("/api/workspaces/")
    assert res.status_code == 200
    [ws] = res.json()
    assert ws["name"] == "default" and ws["owner"] == "student"
    assert [f["path"] for f in ws["files"]] == ["app.lua"]
    assert "job.position" in ws["files"][0]["content"]
    student_client.get("/api/workspaces/")
    assert Workspace.objects.filter(owner=student).count() == 1


def test_students_do_not_see_each_others_workspaces(student_client, other_client) -> None:
    mine = student_client.get("/api/workspaces/").json()
    theirs = other_client.get("/api/workspaces/").json()
    assert {w["id"] for w in mine}.isdisjoint({w["id"] for w in theirs})


def test_anonymous_gets_401(anon_client, db) -> None:
    assert anon_client.get("/api/workspaces/").status_code == 401


def test_staff_list_their_own_workspaces_and_open_a_students_by_id(teacher, teacher_client, student,
                                                                   student_client) -> None:
    course_with(instructors=(teacher,), students=(student,))
    theirs = student_client.get("/api/workspaces/").json()
    mine = teacher_client.get("/api/workspaces/").json()
    assert [w["owner"] for w in mine] == ["teacher"] and mine[0]["name"] == "default"
    assert teacher_client.get(f"/api/workspaces/{theirs[0]['id']}/").status_code == 200
