"""POST /api/workspaces/ (get or create by name)"""
from workspaces import services
from workspaces.models import Workspace

STARTER = [{"path": "app.lua", "content": "-- TODO: your Chord\n"}]


def test_post_creates_a_named_workspace_with_the_given_files(student_client, student) -> None:
    res = student_client.post("/api/workspaces/", {"name": "course-1/chord", "files": STARTER}, format="json")
    assert res.status_code == 201
    body = res.json()
    assert (body["name"], body["owner"], body["files"]) == ("course-1/chord", "student", STARTER)
    # The default workspace was made first: it stays the user's first one.
    assert [w.name for w in Workspace.objects.filter(owner=student)] == ["default", "course-1/chord"]


def test_post_again_returns_the_existing_workspace_unchanged(student_client) -> None:
    first = student_client.post("/api/workspaces/", {"name": "course-1/chord", "files": STARTER}, format="json").json()
    student_client.put(f"/api/workspaces/{first['id']}/",
                       {"files": [{"path": "app.lua", "content": "-- mine\n"}]}, format="json")
    res = student_client.post("/api/workspaces/", {"name": "course-1/chord", "files": STARTER}, format="json")
    assert res.status_code == 200
    assert res.json()["id"] == first["id"]
    assert res.json()["files"] == [{"path": "app.lua", "content": "-- mine\n"}]


def test_the_same_name_is_a_different_workspace_per_user(student_client, other_client) -> None:
    mine = student_client.post("/api/workspaces/", {"name": "course-1/chord", "files": STARTER}, format="json")
    theirs = other_client.post("/api/workspaces/", {"name": "course-1/chord"}, format="json")
    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert mine.json()["id"] != theirs.json()["id"]
    assert theirs.json()["files"] == []
    assert other_client.get(f"/api/workspaces/{mine.json()['id']}/").status_code == 404


def test_post_rejects_bad_paths_and_creates_nothing(student_client, student) -> None:
    res = student_client.post("/api/workspaces/", {"name": "x", "files": [{"path": "../x.lua", "content": ""}]},
                              format="json")
    assert res.status_code == 400
    assert not Workspace.objects.filter(owner=student, name="x").exists()


def test_a_user_has_at_most_max_workspaces(student_client, student, monkeypatch) -> None:
    monkeypatch.setattr(services, "MAX_WORKSPACES", 2)
    assert student_client.post("/api/workspaces/", {"name": "a"}, format="json").status_code == 201
    res = student_client.post("/api/workspaces/", {"name": "b"}, format="json")
    assert res.status_code == 400
    assert "at most 2 workspaces" in res.json()["detail"]


def test_anonymous_gets_401(anon_client, db) -> None:
    assert anon_client.post("/api/workspaces/", {"name": "a"}, format="json").status_code == 401
