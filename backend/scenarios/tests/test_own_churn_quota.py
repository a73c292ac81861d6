"""A student's own churn text (the run bar's "my own scenario…", sent as `churn`, not saved to
the library) is held to the same course quotas as a library scenario or a plain run."""
import pytest

from courses.models import Course, Membership
from jobs.models import Job
from scenarios.models import Scenario

URL = "/api/jobs/"


@pytest.fixture(autouse=True)
def no_scheduling(monkeypatch):
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    monkeypatch.setattr("jobs.tasks.simulation_run.delay", lambda job_id: None)


@pytest.fixture
def course(student):
    c = Course.objects.create(name="DS 101", slug="ds-101", max_nodes_per_job=20, max_concurrent_jobs=5,
                              minutes_per_day_per_student=10)
    Membership.objects.create(user=student, course=c, role=Membership.Role.STUDENT)
    return c


def post(client, **body):
    return client.post(URL, {"code": "print('hi')", **body}, format="json")


def test_a_text_asking_more_nodes_than_the_course_allows_is_refused_naming_the_course(student_client, course) -> None:
    res = post(student_client, churn="at 0s join 15\nat 10s join 6\nat 30s stop\n")
    assert res.status_code == 400
    assert res.json() == {"nodes": ["your course (DS 101) allows at most 20 nodes per job"]}
    assert not Job.objects.exists()


def test_a_text_within_the_quota_runs_with_its_nodes_and_stop_and_is_not_saved(student_client, course) -> None:
    text = "at 0s join 15\nat 10s join 5\nat 40s stop\n"
    res = post(student_client, churn=text)
    assert res.status_code == 201
    job = Job.objects.get(id=res.json()["id"])
    assert (job.nodes, job.duration, job.churn, job.churn_name) == (20, 40, text, "")
    assert not Scenario.objects.exists()


def test_a_text_longer_than_the_minutes_left_today_is_refused(student_client, course) -> None:
    res = post(student_client, churn="at 0s join 2\nat 11m stop\n")
    assert res.status_code == 429
    assert "this job's 660 s would pass your course's (DS 101) 10 minutes of jobs per day" in res.json()["detail"]


def test_a_simulated_text_is_not_bound_by_the_live_quota(student_client, course) -> None:
    assert post(student_client, churn="at 0s join 50\nat 30s stop\n", mode="sim").status_code == 201


def test_a_bad_text_is_a_400_on_churn_naming_its_line(student_client, course) -> None:
    res = post(student_client, churn="at 0s join 2\nat 5 leave 1\n")
    assert res.status_code == 400
    assert res.json() == {"churn": ["line 2, column 6: the instant: expected a time unit (s, m, h, d) after 5"]}


def test_a_text_over_1_mb_is_refused(student_client, course) -> None:
    res = post(student_client, churn="at 0s join 2\n" + "#" * (1024 * 1024))
    assert res.status_code == 400
    assert res.json() == {"churn": ["Ensure this field has no more than 1048576 characters."]}
