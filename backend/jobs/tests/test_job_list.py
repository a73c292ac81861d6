"""GET /api/jobs/"""
from courses.tests.factories import client_for, course_with
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
    assert "instances" not in res.json()[0] and "code" not in res.json()[0]


def test_teacher_sees_own_and_their_courses_students_jobs_only(teacher, teacher_client, student,
                                                                other_student) -> None:
    course_with(instructors=(teacher,), students=(student,))
    ids = {job_make(teacher).id, job_make(student).id}
    job_make(other_student)  # in no course of the teacher's
    assert {j["id"] for j in teacher_client.get("/api/jobs/").json()} == ids


def test_ta_sees_their_courses_students_jobs(ta, student, other_student) -> None:
    course_with(tas=(ta,), students=(student,))
    job = job_make(student)
    job_make(other_student)
    assert [j["id"] for j in client_for(ta).get("/api/jobs/").json()] == [job.id]
