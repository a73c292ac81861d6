"""POST /api/jobs/"""
import pytest

from jobs.models import Job

URL = "/api/jobs/"
VALID = {"code": "print('hi')", "nodes": 3, "duration": 30}


def test_anonymous_gets_401(anon_client, db) -> None:
    assert anon_client.post(URL, VALID, format="json").status_code == 401


def test_returns_201_with_the_job(student_client, student, monkeypatch) -> None:
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    res = student_client.post(URL, {**VALID, "name": "ring"}, format="json")
    assert res.status_code == 201
    body = res.json()
    assert body | {"id": 0, "created_at": ""} == {
        "id": 0, "name": "ring", "owner": "student", "state": "QUEUED", "reason": "",
        "error_line": None, "nodes": 3, "duration": 30, "filename": "app.lua",
        "code": "print('hi')", "created_at": "", "started_at": None, "ended_at": None,
        "instances": []}
    assert Job.objects.get(id=body["id"]).owner == student


def test_schedule_is_enqueued_on_commit(student_client, monkeypatch,
                                        django_capture_on_commit_callbacks) -> None:
    queued: list[int] = []
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", queued.append)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        res = student_client.post(URL, VALID, format="json")
    assert queued == []  # nothing before commit
    for callback in callbacks:
        callback()
    assert queued == [res.json()["id"]]


@pytest.mark.parametrize("field,value", [
    ("nodes", 0), ("nodes", 1001), ("duration", 0), ("duration", 3601), ("code", ""),
    ("filename", "../etc/passwd"),
])
def test_rejects_out_of_range_values(student_client, field, value) -> None:
    res = student_client.post(URL, {**VALID, field: value}, format="json")
    assert res.status_code == 400
    assert field in res.json()
    assert Job.objects.count() == 0


def test_accepts_the_limits(student_client, monkeypatch) -> None:
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    for nodes, duration in [(1, 1), (1000, 3600)]:
        res = student_client.post(URL, {**VALID, "nodes": nodes, "duration": duration}, format="json")
        assert res.status_code == 201


def test_rejects_code_over_256_kb(student_client) -> None:
    res = student_client.post(URL, {**VALID, "code": "-" * (256 * 1024 + 1)}, format="json")
    assert res.status_code == 400
    assert Job.objects.count() == 0
