"""A simulated job run with an assignment's harness (POST /api/jobs/ `assignment`): the harness's
operations reach the job's trace, so the space-time diagram can follow one lookup. Only
assignments of the user's courses (published ones for students), simulated jobs only."""
from __future__ import annotations

from pathlib import Path

import pytest

from courses.models import Course, Membership
from grading.tests.factories import assignment_make
from jobs.models import Job
from jobs.simulation import simulation_run
from traces.selectors import trace_rows_after

ROOT = Path(__file__).resolve().parents[3]
CHORD = ROOT / "assignments" / "chord"
URL = "/api/jobs/"


@pytest.fixture
def course(student, teacher) -> Course:
    course = Course.objects.create(name="DS", slug="ds")
    Membership.objects.create(user=student, course=course, role=Membership.Role.STUDENT)
    Membership.objects.create(user=teacher, course=course, role=Membership.Role.INSTRUCTOR)
    return course


def submit(client, monkeypatch, **extra):
    monkeypatch.setattr("jobs.tasks.simulation_run.delay", lambda job_id: None)
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    data = {"code": "print(1)", "nodes": 2, "duration": 5, "mode": "sim", **extra}
    return client.post(URL, data, format="json")


@pytest.mark.django_db
def test_a_student_runs_an_assignments_harness_in_simulation_only(student_client, course, monkeypatch) -> None:
    assignment = assignment_make(course)
    res = submit(student_client, monkeypatch, assignment=assignment.id)
    assert res.status_code == 201, res.json()
    assert res.json()["harness_of"] == "Chord (DS)"
    assert Job.objects.get(id=res.json()["id"]).harness == "-- the harness\n"

    live = submit(student_client, monkeypatch, assignment=assignment.id, mode="live")
    assert live.status_code == 400
    assert "simulated jobs only" in live.json()["assignment"][0]


@pytest.mark.django_db
def test_an_assignment_outside_the_students_reach_reads_as_missing(student_client, course, monkeypatch) -> None:
    other = Course.objects.create(name="Other", slug="other")
    foreign = assignment_make(other, slug="gossip")
    draft = assignment_make(course, slug="draft", published=False)
    bare = assignment_make(course, slug="bare", harness="  \n")
    for assignment_id in (foreign.id, draft.id, 999_999):
        res = submit(student_client, monkeypatch, assignment=assignment_id)
        assert res.status_code == 400
        assert res.json()["assignment"] == [f"no assignment {assignment_id} in your courses"]
    res = submit(student_client, monkeypatch, assignment=bare.id)
    assert res.json()["assignment"] == ["the assignment 'Chord' has no harness to run"]
    assert Job.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_the_chord_harness_puts_each_lookups_messages_in_the_jobs_trace(student_client, course, monkeypatch) -> None:
    assignment = assignment_make(course, harness=(CHORD / "harness.lua").read_text())
    code = (CHORD / "reference" / "app.lua").read_text()
    res = submit(student_client, monkeypatch, assignment=assignment.id, code=code, nodes=16, duration=200)
    assert res.status_code == 201, res.json()
    simulation_run(res.json()["id"])
    job = Job.objects.get(id=res.json()["id"])
    assert job.state == Job.State.ENDED, job.reason
    rows, _ = trace_rows_after(job=job, limit=100_000)
    # t, node, type, peer, name, out, in, outcome, op, depth, dur, count
    ops = {r[8]: r for r in rows if r[2] == "op"}
    assert ops and {r[4] for r in ops.values()} == {"lookup"}
    calls = [r for r in rows if r[2] == "call" and r[8] in ops]
    assert calls, "no call carries a lookup's operation"
    assert all(r[9] >= 1 for r in calls)
