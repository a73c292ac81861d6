"""POST /api/jobs/<id>/stop/"""
from courses.tests.factories import course_with
from jobs.models import Job
from jobs.tests.factories import job_make


def test_stop_kills_the_job_and_enqueues_the_stop_task(student_client, student, monkeypatch,
                                                        django_capture_on_commit_callbacks) -> None:
    stopped: list[int] = []
    monkeypatch.setattr("jobs.tasks.job_stop.delay", stopped.append)
    job = job_make(student, state=Job.State.RUNNING)
    with django_capture_on_commit_callbacks(execute=True):
        res = student_client.post(f"/api/jobs/{job.id}/stop/")
    assert res.status_code == 200
    assert (res.json()["state"], res.json()["reason"]) == ("KILLED", "stopped by student")
    job.refresh_from_db()
    assert job.ended_at is not None and job.stop_requested_at is not None
    assert stopped == [job.id]


def test_teacher_may_stop_a_students_job(teacher, teacher_client, student, monkeypatch) -> None:
    course_with(instructors=(teacher,), students=(student,))
    monkeypatch.setattr("jobs.tasks.job_stop.delay", lambda job_id: None)
    job = job_make(student, state=Job.State.REGISTERING)
    assert teacher_client.post(f"/api/jobs/{job.id}/stop/").json()["reason"] == "stopped by teacher"


def test_stopping_an_ended_job_is_a_conflict(student_client, student) -> None:
    job = job_make(student, state=Job.State.ENDED, reason="all 2 instances ended")
    res = student_client.post(f"/api/jobs/{job.id}/stop/")
    assert res.status_code == 409
    assert res.json() == {"detail": "job is already ENDED"}


def test_other_student_gets_404_and_the_job_keeps_running(other_client, student) -> None:
    job = job_make(student, state=Job.State.RUNNING)
    assert other_client.post(f"/api/jobs/{job.id}/stop/").status_code == 404
    job.refresh_from_db()
    assert job.state == Job.State.RUNNING
