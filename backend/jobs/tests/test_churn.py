"""Churn jobs on the controller (docs/churn.md, "On the service"): creation from a scenario,
timelines in LIST, churn events from the daemons' reports, fails and keep-population
replacements. Daemons are FakeSplayd websocket clients through the real DaemonConsumer."""
import asyncio

import pytest
from channels.db import database_sync_to_async as db

from daemons.tests.factories import daemon_make
from daemons.tests.wsdaemon import FakeSplayd
from jobs.churn import CHURN_SEED, LEAD_MAX, LEAD_MIN, NODE_START, start_lead
from jobs.models import ChurnEvent, Job, JobInstance
from jobs.scheduling import churn_replace_run
from jobs.services import instance_update
from jobs.tasks import job_schedule
from jobs.tests.factories import in_worker_thread, instance_make, job_make
from scenarios.models import Scenario

S = JobInstance.State
APP = "print('hi')\n"
SCRIPT = "at 0s join 2\nat 5s join 1\nat 10s leave 1\nat 20s stop\n"


def _post(client, **body):
    return client.post("/api/jobs/", {"code": APP, **body}, format="json")


@pytest.mark.django_db
def test_a_scenario_decides_nodes_and_duration_and_shows_in_the_job(student_client) -> None:
    r = _post(student_client, churn=SCRIPT)
    assert r.status_code == 201, r.data
    assert (r.data["nodes"], r.data["duration"]) == (3, 20)
    assert r.data["churn"] == {"name": "", "keep_population": False, "positions": 3, "spares": 0, "epoch": None}


@pytest.mark.django_db
def test_keep_population_adds_spares_and_works_without_a_scenario(student_client) -> None:
    r = _post(student_client, churn=SCRIPT, keep_population=True)
    assert (r.data["nodes"], r.data["churn"]["positions"], r.data["churn"]["spares"]) == (4, 3, 1)
    r = _post(student_client, nodes=8, duration=10, keep_population=True)
    assert r.status_code == 201, r.data
    assert (r.data["nodes"], r.data["churn"]["positions"], r.data["churn"]["spares"]) == (10, 8, 2)
    assert Job.objects.get(id=r.data["id"]).churn.endswith("at 0s join 8\n")


@pytest.mark.django_db
def test_a_library_scenario_is_copied_into_the_job_with_its_name(student_client, teacher) -> None:
    sc = Scenario.objects.create(name="massive-failure", text="at 0s join 4\nat 5s leave 50%\n", owner=teacher)
    r = _post(student_client, scenario=sc.id, duration=12)
    assert r.status_code == 201, r.data
    assert (r.data["nodes"], r.data["duration"], r.data["churn"]["name"]) == (4, 12, "massive-failure")
    sc.text = "at 0s join 9\n"
    sc.save()
    assert Job.objects.get(id=r.data["id"]).churn == "at 0s join 4\nat 5s leave 50%\n"


@pytest.mark.django_db
def test_bad_churn_requests_are_refused_naming_the_problem(student_client, teacher) -> None:
    r = _post(student_client, churn="at 5 join 3\n")
    assert r.status_code == 400 and r.data["churn"][0].startswith("line 1, column "), r.data
    assert "time unit" in r.data["churn"][0]
    r = _post(student_client, churn="at 0s leave 3\n")
    assert r.status_code == 400 and r.data["churn"] == ["the scenario never starts a node"]
    r = _post(student_client, churn="at 0s join 10\nfrom 1s to 100s const churn 200% per 1s\n")
    assert r.status_code == 400 and r.data["churn"][0].startswith("the scenario uses 1,9"), r.data
    assert "replacement ratio to 0%" in r.data["churn"][0]
    r = _post(student_client, churn=SCRIPT, nodes=5)
    assert r.status_code == 400 and r.data["nodes"] == ["the scenario uses 3 nodes: leave nodes out, or give 3"]
    sc = Scenario.objects.create(name="s", text=SCRIPT, owner=teacher)
    r = _post(student_client, churn=SCRIPT, scenario=sc.id)
    assert r.status_code == 400 and "not both" in r.data["scenario"][0]
    assert not Job.objects.exists()


@pytest.mark.django_db(transaction=True)
async def test_list_carries_each_daemons_timelines_and_start_a_lead(student) -> None:
    script = "at 0s join 2\nat 3s leave 1 gracefully\nat 4s join 1\nat 9s stop\n"
    _, key = await db(daemon_make)("lab-1", max_instances=8, ports=(21000, 21099))
    s1 = FakeSplayd(key, name="lab-1", max_instances=8, ports=(21000, 21099))
    await s1.connect()
    job = await db(job_make)(student, nodes=4, duration=9, churn=script, churn_positions=3, churn_spares=1,
                             keep_population=True)
    task = in_worker_thread(job_schedule, job.id)
    register = await s1.expect("register")
    await s1.reply(register, ports=list(range(21000, 21000 + register["count"])))
    assert (await s1.expect("free"))["ports"] == [21004]  # the superset's fifth slot
    listing = await s1.expect("list")
    events = listing["churn"]["events"]
    assert listing["churn"]["end"] == 9
    assert sorted(events) == ["1", "2", "3"]  # node 4, the spare, has none
    left = [n for n, evs in events.items() if [3, "leave", True] in evs]
    assert len(left) == 1 and all(evs[0] == [0, "join", False] for n, evs in events.items() if n in ("1", "2"))
    assert events["3"] == [[4, "join", False]]
    await s1.reply(listing)
    start = await s1.expect("start")
    assert start["lead"] == LEAD_MIN  # three early joins start well within it
    await s1.reply(start, started=[], epoch=1.0)
    await asyncio.wait_for(task, 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.RUNNING and job.churn_epoch is not None
    states = await db(lambda: sorted(job.instances.values_list("node", "state")))()
    assert states == [(1, S.RESERVED), (2, S.RESERVED), (3, S.RESERVED), (4, S.RESERVED)]  # they report joins
    await s1.close()


def test_the_start_lead_gives_the_busiest_daemon_time_to_start_its_early_joins() -> None:
    assert start_lead([[0, 0, 5], [1]]) == LEAD_MIN
    # 100 joins at 1 s on one daemon: the 100th process is up at 100 x NODE_START from START
    assert start_lead([[1.0] * 100, [1.0] * 10]) == round(100 * NODE_START - 1.0, 3) > LEAD_MIN
    spread = [k * 0.1 for k in range(100)]  # one join every 100 ms: the daemon keeps up
    assert start_lead([spread]) == LEAD_MIN
    assert start_lead([[0.0] * 10_000]) == LEAD_MAX


@pytest.fixture
def churn_job(student):
    daemon, _ = daemon_make()
    job = job_make(student, state=Job.State.RUNNING, nodes=4, churn=SCRIPT, churn_positions=3, churn_spares=1,
                   keep_population=True, churn_epoch=1000.0)
    for node in (1, 2, 3, 4):
        instance_make(job, node, daemon, state=S.RESERVED)
    return job, daemon


def _report(job, daemon, node, state, reason="", churn=None, code=None) -> bool:
    return instance_update(daemon_id=daemon.id, job_id=job.id, node=node, state=state, reason=reason,
                           exit_code=code, churn=churn)


@pytest.mark.django_db
def test_joins_and_leaves_become_events_a_crash_a_fail_and_the_end_nothing(churn_job, monkeypatch,
                                                                           django_capture_on_commit_callbacks) -> None:
    job, daemon = churn_job
    # Only the Celery queue is stood in for (no worker runs in unit tests): the task itself is
    # tested below and the whole path in tests/integration/test_churn_service.py.
    replaced = []
    monkeypatch.setattr("jobs.tasks.churn_replace.delay", lambda *a: replaced.append(a))
    with django_capture_on_commit_callbacks(execute=True):
        _report(job, daemon, 1, S.RUNNING, churn={"event": "join", "planned": 0, "t": 0.004})
        _report(job, daemon, 2, S.RUNNING, churn={"event": "join", "planned": 0, "t": 0.006})
        _report(job, daemon, 1, S.LEFT, "left at 10 s by the scenario (as a failure)",
                churn={"event": "leave", "planned": 10, "t": 10.02, "graceful": False}, code=-9)
        _report(job, daemon, 1, S.RUNNING, churn={"event": "join", "planned": 12, "t": 12.001})
        _report(job, daemon, 2, S.FAILED, "runtime error: app.lua:3: boom", code=1)
        _report(job, daemon, 1, S.ENDED, "the scenario ended")
    events = list(ChurnEvent.objects.filter(job=job).values_list("node", "event", "t", "planned"))
    assert events[:4] == [(1, "join", 0.004, 0.0), (2, "join", 0.006, 0.0), (1, "leave", 10.02, 10.0),
                          (1, "join", 12.001, 12.0)]
    assert events[4][:2] == (2, "fail") and len(events) == 5  # the scenario's end is no fail
    texts = list(ChurnEvent.objects.filter(job=job).values_list("text", flat=True))
    assert texts[2] == "node 1 left (failure), planned at 10 s, +20 ms"
    assert texts[4] == "node 2 went down: runtime error: app.lua:3: boom"
    assert replaced == [(job.id, 2, 2)]  # keep_population asks for a spare in node 2's place


@pytest.mark.django_db
def test_the_churn_api_gives_the_plan_and_the_events_to_who_may_see_the_job(churn_job, student_client,
                                                                            other_client) -> None:
    job, daemon = churn_job
    _report(job, daemon, 1, S.RUNNING, churn={"event": "join", "planned": 0, "t": 0.01})
    r = student_client.get(f"/api/jobs/{job.id}/churn/")
    assert r.status_code == 200
    assert r.data["planned"]["population"] == [[0, 2], [5, 3], [10, 2]] and r.data["epoch"] == 1000.0
    assert [(e["node"], e["event"], e["planned"]) for e in r.data["events"]] == [(1, "join", 0.0)]
    assert other_client.get(f"/api/jobs/{job.id}/churn/").status_code == 404
    plain = job_make(job.owner)
    assert student_client.get(f"/api/jobs/{plain.id}/churn/").status_code == 404


@pytest.mark.django_db(transaction=True)
async def test_a_spare_replaces_a_dead_node_and_follows_its_remaining_timeline(student) -> None:
    import time
    _, key = await db(daemon_make)("lab-1", max_instances=8, ports=(21000, 21099))
    s1 = FakeSplayd(key, name="lab-1", max_instances=8, ports=(21000, 21099))
    await s1.connect()
    daemon = await db(lambda: JobInstance._meta.get_field("daemon").related_model.objects.get(name="lab-1"))()
    # Node 3 joins at 5 s and leaves at 10 s for good; it dies at ~6 s: the spare plays it until 10 s.
    script = "at 0s join 2\nat 5s join 1\nat 10s leave 1\nat 20s stop\n"
    job = await db(job_make)(student, state=Job.State.RUNNING, nodes=4, churn=script, churn_positions=3,
                             churn_spares=1, keep_population=True, churn_epoch=time.time() - 6)
    for node in (1, 2, 3, 4):
        await db(instance_make)(job, node, daemon, state=S.RESERVED if node == 4 else S.LOST)
    from lib.churn_preview import churn
    plan = churn.load(script, seed=CHURN_SEED)
    leaver = next(e.node for e in plan.events if e.kind == "leave")
    task = in_worker_thread(churn_replace_run, job.id, leaver, leaver)
    join = await s1.expect("join")
    assert (join["node"], join["plays"], join["events"]) == (4, leaver, [[10, "leave", False]])
    await s1.reply(join, t=6.0)
    await asyncio.wait_for(task, 10)
    assert await db(lambda: JobInstance.objects.get(job=job, node=4).plays)() == leaver
    await s1.close()
