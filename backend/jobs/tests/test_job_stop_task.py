"""jobs.tasks.job_stop and jobs.tasks.jobs_expire."""
import asyncio
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async as db
from django.utils import timezone

from daemons.tests.factories import daemon_make
from daemons.tests.wsdaemon import FakeSplayd
from jobs.models import Job, JobInstance
from jobs.tasks import job_stop, jobs_expire
from jobs.tests.factories import in_worker_thread, instance_make, job_make


@pytest.mark.django_db(transaction=True)
async def test_stop_tells_the_daemon_and_kills_the_instances(student) -> None:
    daemon, key = await db(daemon_make)(session="s")
    job = await db(job_make)(student, state=Job.State.KILLED, nodes=2, reason="stopped by student")
    await db(instance_make)(job, 1, daemon)
    await db(instance_make)(job, 2, daemon)
    splayd = FakeSplayd(key, session="s", instances=[{"job": job.id, "node": n, "state": "RUNNING"}
                                                      for n in (1, 2)])
    await splayd.connect()

    task = in_worker_thread(job_stop, job.id)
    stop = await splayd.expect("stop")
    assert stop["job"] == job.id
    await splayd.send({"type": "instance", "job": job.id, "node": 1, "state": "KILLED",
                       "exit_code": -15, "reason": "stopped"})
    await splayd.reply(stop)
    await asyncio.wait_for(task, 10)
    rows = await db(lambda: list(job.instances.order_by("node").values_list("state", "exit_reason")))()
    assert rows == [("KILLED", "stopped"), ("KILLED", "stopped by student")]
    await db(job.refresh_from_db)()
    assert (job.state, job.reason) == (Job.State.KILLED, "stopped by student")
    await splayd.close()


@pytest.mark.django_db(transaction=True)
async def test_an_open_job_page_sees_the_instances_end_after_a_stop(student) -> None:
    """Stop marks the job KILLED at once; the page watching it must then also be told that its
    instances ended (it stops polling a terminal job), not keep showing them RUNNING."""
    from logs.tests.test_job_consumer import _browser

    daemon, key = await db(daemon_make)(session="s")
    job = await db(job_make)(student, state=Job.State.KILLED, nodes=2, reason="stopped by student")
    for node in (1, 2):
        await db(instance_make)(job, node, daemon)
    page = await _browser(job.id, "student")
    assert (await page.connect())[0]
    first = await page.receive_json_from(timeout=5)
    assert [i["state"] for i in first["job"]["instances"]] == ["RUNNING", "RUNNING"]
    splayd = FakeSplayd(key, session="s", instances=[{"job": job.id, "node": n, "state": "RUNNING"}
                                                      for n in (1, 2)])
    await splayd.connect()
    task = in_worker_thread(job_stop, job.id)
    await splayd.reply(await splayd.expect("stop"))
    await asyncio.wait_for(task, 10)
    pushed = await page.receive_json_from(timeout=5)
    assert pushed["type"] == "job.state"
    assert (pushed["job"]["state"], [i["state"] for i in pushed["job"]["instances"]]) == \
        ("KILLED", ["KILLED", "KILLED"])
    await page.disconnect()
    await splayd.close()


def test_expire_stops_jobs_past_duration_and_grace_once(student, settings, monkeypatch) -> None:
    settings.SPLAYLAB_JOB_GRACE = 15
    stopped: list[int] = []
    monkeypatch.setattr("jobs.tasks.job_stop.delay", stopped.append)
    now = timezone.now()
    late = job_make(student, state=Job.State.RUNNING, duration=30,
                    started_at=now - timedelta(seconds=46))
    job_make(student, state=Job.State.RUNNING, duration=30, started_at=now - timedelta(seconds=40))
    assert jobs_expire() == [late.id]
    assert jobs_expire() == []  # claimed: not stopped twice
    assert stopped == [late.id]


def test_expire_gives_a_large_job_the_time_its_daemons_take_to_launch_it(student, settings, monkeypatch) -> None:
    """600 nodes on one daemon: launched one after another after START, the last ones count
    their duration from up to 600 x 0.05 = 30 s later; a 4-node job gets nothing extra."""
    settings.SPLAYLAB_JOB_GRACE = 15
    monkeypatch.setattr("jobs.tasks.job_stop.delay", lambda job_id: None)
    daemon, _ = daemon_make(max_instances=600)
    now = timezone.now()
    large = job_make(student, state=Job.State.RUNNING, nodes=600, duration=30,
                     started_at=now - timedelta(seconds=70))
    JobInstance.objects.bulk_create(JobInstance(job=large, node=k, daemon=daemon, port=20000 + k,
                                                state=JobInstance.State.RUNNING) for k in range(1, 601))
    small = job_make(student, state=Job.State.RUNNING, nodes=4, duration=30,
                     started_at=now - timedelta(seconds=70))
    for k in range(1, 5):
        instance_make(small, k, daemon)
    assert jobs_expire() == [small.id]  # 70 s > 30 + 15; the large one has until 30 + 15 + 30
    Job.objects.filter(id=large.id).update(started_at=now - timedelta(seconds=76))
    assert jobs_expire() == [large.id]


def test_stop_after_expiry_ends_the_job_when_the_daemon_is_gone(student, settings) -> None:
    settings.SPLAYLAB_REGISTER_TIMEOUT = 0.2
    daemon, _ = daemon_make()  # no consumer connected: nobody answers
    job = job_make(student, state=Job.State.RUNNING, nodes=2, duration=30)
    instance_make(job, 1, daemon, state=JobInstance.State.ENDED)
    instance_make(job, 2, daemon)
    job_stop(job.id)
    job.refresh_from_db()
    assert (job.state, job.reason) == (Job.State.ENDED, "all 2 instances ended")
    assert job.instances.get(node=2).exit_reason == "duration of 30 s reached"
