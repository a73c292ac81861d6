"""GET /api/daemons/"""
from daemons.tests.factories import daemon_make
from jobs.tests.factories import instance_make, job_make


def test_instructor_sees_daemons_with_load(teacher_client, student) -> None:
    daemon, _ = daemon_make("lab-1", max_instances=8, ports=(21000, 21099))
    instance_make(job_make(student), 1, daemon)
    res = teacher_client.get("/api/daemons/")
    assert res.status_code == 200
    [row] = res.json()
    assert row | {"last_contact": None} == {
        "id": daemon.id, "name": "lab-1", "state": "ONLINE", "last_contact": None, "ip": "127.0.0.1",
        "max_instances": 8, "active_instances": 1, "ports": [21000, 21099], "version": 0, "sandbox": "",
        "labels": {}, "limits": {}, "availability": "", "available": True, "unavailable_reason": "",
        "load": None, "rtt_ms": None, "drained": False, "revoked": False,
        "running_jobs": [{"id": row["running_jobs"][0]["id"], "name": "", "instances": 1}]}
    assert "key" not in row and "key_hash" not in row


def test_student_gets_403(student_client) -> None:
    assert student_client.get("/api/daemons/").status_code == 403


def test_anonymous_gets_401(anon_client, db) -> None:
    assert anon_client.get("/api/daemons/").status_code == 401
