"""Run history (issue 22 point 4): a run is named by its owner (PATCH /api/jobs/<id>/) and run
again as it was (POST /api/jobs/<id>/rerun/): the same code and every setting, as a new job of the
one who asks, through the same checks as a new job."""
from __future__ import annotations

import pytest

from courses.models import Course, Membership
from jobs.models import Job

URL = "/api/jobs/"
CODE = "print('hi')\n"


@pytest.fixture(autouse=True)
def _no_tasks(monkeypatch) -> None:
    monkeypatch.setattr("jobs.tasks.simulation_run.delay", lambda job_id: None)
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)


def create(client, **extra) -> dict:
    res = client.post(URL, {"code": CODE, "nodes": 3, "duration": 20, **extra}, format="json")
    assert res.status_code == 201, res.json()
    return res.json()


@pytest.mark.django_db
def test_the_owner_names_a_run_and_others_cannot(student_client, other_client) -> None:
    job = create(student_client)
    res = student_client.patch(f"{URL}{job['id']}/", {"name": "  ring with king delays "}, format="json")
    assert res.status_code == 200 and res.json()["name"] == "ring with king delays"
    assert student_client.patch(f"{URL}{job['id']}/", {"name": "   "}, format="json").json() == {
        "name": ["a run's name cannot be empty"]}
    assert other_client.patch(f"{URL}{job['id']}/", {"name": "mine"}, format="json").status_code == 404
    assert Job.objects.get(id=job["id"]).name == "ring with king delays"


@pytest.mark.django_db
def test_a_rerun_has_the_code_and_every_setting_of_the_run(student_client) -> None:
    first = create(student_client, name="lossy", mode="sim", nodes=4, seed=42, trace={"max_events": 500},
                   network={"net": "jitter:30ms:10ms", "loss": "2%"}, churn="at 0s join 4\nat 10s leave 1\nat 15s stop\n")
    res = student_client.post(f"{URL}{first['id']}/rerun/")
    assert res.status_code == 201, res.json()
    again = res.json()
    assert again["id"] != first["id"]
    same = ("name", "code", "code_version", "nodes", "duration", "network", "mode", "seed", "trace", "churn", "harness_of")
    assert {k: again[k] for k in same} == {k: first[k] for k in same}
    a, b = Job.objects.get(id=first["id"]), Job.objects.get(id=again["id"])
    assert (b.network, b.churn, b.churn_positions, b.keep_population) == (a.network, a.churn, a.churn_positions, a.keep_population)


@pytest.mark.django_db
def test_a_rerun_passes_the_checks_of_a_new_job(student, student_client, other_client) -> None:
    course = Course.objects.create(name="DS 101", slug="ds-101", max_concurrent_jobs=2)
    Membership.objects.create(user=student, course=course, role=Membership.Role.STUDENT)
    job = create(student_client)
    # another student cannot see it, so cannot run it again either
    assert other_client.post(f"{URL}{job['id']}/rerun/").status_code == 404
    # the course's quota of jobs at once holds for a re-run as for a new job
    assert student_client.post(f"{URL}{job['id']}/rerun/").status_code == 201
    refused = student_client.post(f"{URL}{job['id']}/rerun/")
    assert refused.status_code == 429, refused.json()
    assert "DS 101" in str(refused.json())
    assert Job.objects.filter(owner=student).count() == 2
