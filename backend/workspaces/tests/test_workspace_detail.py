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


def test_a_save_writes_only_what_changed_and_the_workspace_is_exactly_the_files_sent(
        student_client, workspace) -> None:
    url = f"/api/workspaces/{workspace.id}/"
    first = [{"path": "app.lua", "content": "print(1)\n"}, {"path": "a.lua", "content": "-- a"},
             {"path": "b.lua", "content": "-- b"}]
    assert student_client.put(url, {"files": first}, format="json").status_code == 200
    second = [{"path": "app.lua", "content": "print(2)\n"}, {"path": "b.lua", "content": "-- b"},
              {"path": "c.lua", "content": ""}]
    res = student_client.put(url, {"files": second}, format="json")
    assert res.json()["files"] == sorted(second, key=lambda f: f["path"])
    assert student_client.get(url).json()["files"] == sorted(second, key=lambda f: f["path"])
    assert student_client.put(url, {"files": []}, format="json").json()["files"] == []


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


def test_renaming_to_a_name_in_use_is_a_409_naming_it(student_client, student, workspace) -> None:
    other = student_client.post("/api/workspaces/", {"name": "ring"}, format="json").json()
    res = student_client.put(f"/api/workspaces/{workspace.id}/", {"name": "ring", "files": []}, format="json")
    assert res.status_code == 409
    assert res.json() == {"detail": "you already have a workspace named 'ring'"}
    assert student_client.get(f"/api/workspaces/{workspace.id}/").json()["name"] == "default"
    assert student_client.get(f"/api/workspaces/{other['id']}/").json()["name"] == "ring"


def test_a_unique_constraint_that_races_the_check_is_a_409(student_client, workspace, monkeypatch) -> None:
    """Two renames at once: the check passes for both, the constraint refuses the second."""
    from workspaces.models import Workspace

    student_client.post("/api/workspaces/", {"name": "ring"}, format="json")
    real_filter = Workspace.objects.filter
    monkeypatch.setattr(Workspace.objects, "filter",
                        lambda *a, **k: real_filter(id=-1) if k.get("name") == "ring" else real_filter(*a, **k))
    res = student_client.put(f"/api/workspaces/{workspace.id}/", {"name": "ring", "files": []}, format="json")
    assert res.status_code == 409
    assert "ring" in res.json()["detail"]
