"""GET /api/jobs/"""
from jobs.tests.factories import job_make


def test_anonymous_gets_401(anon_client, db) -> None:
    assert anon_client.get("/api/jobs/").status_code == 401


def test_student_sees_only_own_jobs_newest_first(student_client, student, other_student) -> None:
    first = job_make(student)
    job_make(other_student)
    second = job_make(student)
    res = student_client.get("/api/jobs/")
    assert res.status_code == 200
    assert [j["id"] for j in res.json()] == [second.id, first.id]
    assert "instances" not in res.json()[0]


def test_teacher_sees_everyones_jobs(teacher_client, student, other_student) -> None:
    ids = {job_make(student).id, job_make(other_student).id}
    assert {j["id"] for j in teacher_client.get("/api/jobs/").json()} == ids


def test_ta_sees_everyones_jobs(ta, student) -> None:
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(ta)
    job = job_make(student)
    assert [j["id"] for j in client.get("/api/jobs/").json()] == [job.id]
