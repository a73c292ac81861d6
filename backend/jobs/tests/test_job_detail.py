"""GET /api/jobs/<id>/"""
from courses.tests.factories import course_with
from daemons.tests.factories import daemon_make
from jobs.models import JobInstance
from jobs.tests.factories import instance_make, job_make


def test_owner_gets_the_job_with_kept_instances(student_client, student) -> None:
    daemon, _ = daemon_make()
    job = job_make(student, nodes=2)
    instance_make(job, 2, daemon, port=20002, ip="127.1.78.34")
    instance_make(job, 1, daemon, port=20001, ip="127.1.78.33", state=JobInstance.State.ENDED)
    instance_make(job, None, daemon, state=JobInstance.State.RESERVED)  # not kept: hidden
    res = student_client.get(f"/api/jobs/{job.id}/")
    assert res.status_code == 200
    assert res.json()["instances"] == [
        {"node": 1, "daemon": daemon.name, "ip": "127.1.78.33", "port": 20001, "state": "ENDED",
         "exit_reason": "", "plays": None},
        {"node": 2, "daemon": daemon.name, "ip": "127.1.78.34", "port": 20002, "state": "RUNNING",
         "exit_reason": "", "plays": None}]


def test_other_student_gets_404(other_client, student) -> None:
    job = job_make(student)
    assert other_client.get(f"/api/jobs/{job.id}/").status_code == 404


def test_the_instructor_of_the_owners_course_reads_it_with_its_code(teacher, teacher_client, student) -> None:
    course_with(instructors=(teacher,), students=(student,))
    job = job_make(student)
    body = teacher_client.get(f"/api/jobs/{job.id}/").json()
    assert (body["owner"], body["code"]) == ("student", job.code)


def test_an_instructor_account_outside_the_owners_courses_gets_404(teacher_client, student) -> None:
    job = job_make(student)
    assert teacher_client.get(f"/api/jobs/{job.id}/").status_code == 404


def test_anonymous_gets_401(anon_client, student) -> None:
    job = job_make(student)
    assert anon_client.get(f"/api/jobs/{job.id}/").status_code == 401
