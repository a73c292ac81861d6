"""GET/PUT /api/workspaces/<id>/"""
import pytest

from courses.tests.factories import course_with
from workspaces.services import workspace_default_ensure


@pytest.fixture
def workspace(student):
    return workspace_default_ensure(user=student)


def test_put_replaces_the_files(student_client, workspace) -> None:
    files = [{"path": "app.lua", "content": "print(1)\n"}, {"path": "lib/ring.lua", "content": "  \n"}]
    res = student_client.put(f"/api/workspaces/{workspace.id}/", {"files": files}, format="json")
    assert res.status_code == 200
    assert res.json()["files"] == sorted(files, key=lambda f: f["path"])
    got = student_client.get(f"/api/workspaces/{workspace.id}/").json()
    assert got["files"] == res.json()["files"]


@pytest.mark.parametrize("path", ["../x.lua", "/abs.lua", "a//b.lua", ""])
def test_put_rejects_bad_paths(student_client, workspace, path) -> None:
    res = student_client.put(f"/api/workspaces/{workspace.id}/",
                             {"files": [{"path": path, "content": "x"}]}, format="json")
    assert res.status_code == 400
    assert [f.path for f in workspace.files.all()] == ["app.lua"]


def test_other_student_gets_404_for_get_and_put(other_client, workspace) -> None:
    assert other_client.get(f"/api/workspaces/{workspace.id}/").status_code == 404
    res = other_client.put(f"/api/workspaces/{workspace.id}/", {"files": []}, format="json")
    assert res.status_code == 404
    assert workspace.files.count() == 1


def test_the_owners_instructor_reads_a_students_workspace_but_does_not_write_it(
        teacher, teacher_client, student, workspace) -> None:
    course_with(instructors=(teacher,), students=(student,))
    assert teacher_client.get(f"/api/workspaces/{workspace.id}/").json()["owner"] == "student"
    res = teacher_client.put(f"/api/workspaces/{workspace.id}/", {"files": []}, format="json")
    assert res.status_code == 403 and workspace.files.exists()


def test_an_instructor_account_outside_the_owners_courses_gets_404(teacher_client, workspace) -> None:
    assert teacher_client.get(f"/api/workspaces/{workspace.id}/").status_code == 404
