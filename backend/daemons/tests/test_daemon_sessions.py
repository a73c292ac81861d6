"""Sessions that survive faults, the controller's side (docs/architecture.md, "Sessions"):
numbered frames applied once and acked, the ack kept across connections, heartbeats echoed,
dead links closed, unreachable daemons' keep-population nodes lost, revocation at once."""
import asyncio
import time
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async as db
from channels.layers import get_channel_layer
from django.utils import timezone

from daemons.models import Daemon
from daemons.services import daemons_mark_unreachable, web_started_record
from daemons.tests.factories import daemon_make
from daemons.tests.wsdaemon import FakeSplayd
from jobs.models import Job, JobInstance
from jobs.tests.factories import instance_make, job_make
from logs.models import LogLine

pytestmark = pytest.mark.django_db(transaction=True)


def _line(seq: int) -> dict:
    return {"node": 1, "seq": seq, "t": time.time(), "level": "print", "text": str(seq)}


async def test_numbered_frames_are_applied_once_acked_and_the_ack_resumes_the_session(student) -> None:
    daemon, key = await db(daemon_make)(session="s-1")
    job = await db(job_make)(student, state=Job.State.RUNNING)
    await db(instance_make)(job, 1, daemon)
    running = [{"job": job.id, "node": 1, "state": "RUNNING"}]
    splayd = FakeSplayd(key, session="s-1", instances=running)
    await splayd.connect()
    await splayd.send({"type": "log", "job": job.id, "o": 1, "lines": [_line(1), _line(2)]})
    ack = await splayd.expect("ack")
    assert ack["seq"] == 1
    await splayd.send({"type": "heartbeat", "running": 1, "load": 0.25, "t": 41.5, "rtt_ms": 2.5})
    assert await splayd.expect("ack") == {"type": "ack", "seq": 1, "t": 41.5}
    await splayd.close()
    await db(daemon.refresh_from_db)()
    assert daemon.acked_seq == 1

    again = FakeSplayd(key, session="s-1", instances=running)
    welcome = await again.connect()
    assert welcome["acked"] == 1  # the daemon resends from frame 2
    # Frame 1 arrives again (sent before the ack got through) with a line the controller never
    # stored: skipped whole, since the controller applied frame 1 already.
    await again.send({"type": "log", "job": job.id, "o": 1, "lines": [_line(1), _line(99)]})
    await again.send({"type": "log", "job": job.id, "o": 2, "lines": [_line(3)]})
    await again.send({"type": "heartbeat", "running": 1, "t": 50.0})
    ack = await again.expect("ack")
    while ack.get("t") != 50.0:
        ack = await again.expect("ack")
    assert ack["seq"] == 2
    rows = await db(lambda: list(LogLine.objects.filter(job=job).values_list("seq", flat=True)))()
    assert sorted(rows) == [1, 2, 3]
    await again.close()
    await db(daemon.refresh_from_db)()
    assert (daemon.acked_seq, daemon.load, daemon.rtt_ms) == (2, 0.25, 2.5)


async def test_a_new_session_starts_numbering_again(student) -> None:
    daemon, key = await db(daemon_make)(session="old")
    await db(Daemon.objects.filter(id=daemon.id).update)(acked_seq=500)
    welcome = await FakeSplayd(key, session=None).connect()
    assert welcome["acked"] == 0


async def test_hello_records_the_owners_labels_limits_and_availability_and_updates_follow() -> None:
    daemon, key = await db(daemon_make)()
    splayd = FakeSplayd(key)
    splayd.hello.update(labels={"room": "B12", "owner": "volunteer"},
                        limits={"max_mem_mb": 128, "max_cpu_seconds": 30, "bogus": "x"},
                        availability={"policy": "idle", "available": True, "reason": ""})
    await splayd.connect()
    await db(daemon.refresh_from_db)()
    assert daemon.labels == {"room": "B12", "owner": "volunteer"}
    assert daemon.limits == {"max_mem_mb": 128, "max_cpu_seconds": 30}
    assert (daemon.availability, daemon.available) == ("idle", True)
    await splayd.send({"type": "availability", "available": False, "reason": "owner active: keyboard used 2 s ago"})
    await splayd.send({"type": "heartbeat", "running": 0, "t": 1.0})
    await splayd.expect("ack")
    await db(daemon.refresh_from_db)()
    assert not daemon.available and daemon.unavailable_reason == "owner active: keyboard used 2 s ago"
    await splayd.close()


async def test_a_revoked_key_is_refused_at_hello_and_a_connected_daemon_at_once() -> None:
    daemon, key = await db(daemon_make)()
    splayd = FakeSplayd(key)
    await splayd.connect()
    await db(daemon.refresh_from_db)()
    await get_channel_layer().send(daemon.channel_name, {"type": "daemon.revoke", "reason": "daemon key revoked"})
    assert await splayd.expect("refused") == {"type": "refused", "reason": "daemon key revoked"}
    assert await splayd.ws.receive_output(timeout=5) == {"type": "websocket.close", "code": 4001}
    await db(Daemon.objects.filter(id=daemon.id).update)(revoked_at=timezone.now())
    late = FakeSplayd(key)
    await late.ws.connect()
    await late.ws.send_json_to(late.hello)
    assert await late.ws.receive_json_from(timeout=5) == {"type": "refused", "reason": "daemon key revoked"}


async def test_a_silent_link_is_closed_after_dead_after(settings, student) -> None:
    settings.SPLAYLAB_DAEMON_DEAD_AFTER = 0.6
    daemon, key = await db(daemon_make)()
    splayd = FakeSplayd(key)
    await splayd.connect()
    assert (await splayd.ws.receive_output(timeout=5))["type"] == "websocket.close"
    for _ in range(50):  # the consumer records the disconnect right after closing
        await db(daemon.refresh_from_db)()
        if daemon.state == Daemon.State.OFFLINE:
            break
        await asyncio.sleep(0.1)
    assert daemon.state == Daemon.State.OFFLINE and daemon.channel_name == ""


def _silent(daemon: Daemon, seconds: float) -> None:
    Daemon.objects.filter(id=daemon.id).update(last_contact=timezone.now() - timedelta(seconds=seconds),
                                               state=Daemon.State.OFFLINE)


def test_an_unreachable_daemons_keep_population_nodes_are_lost_and_the_rest_wait(student, monkeypatch) -> None:
    monkeypatch.setattr("daemons.services._web_started", lambda: 0.0)  # the web process is long up
    dead, _ = daemon_make("dead")
    alive, _ = daemon_make("alive")  # the controller hears from someone: it is not the one cut off
    kept = job_make(student, state=Job.State.RUNNING, nodes=2)
    Job.objects.filter(id=kept.id).update(keep_population=True, churn_positions=2, churn_epoch=time.time())
    plain = job_make(student, state=Job.State.RUNNING, nodes=1)
    node = instance_make(kept, 1, dead)
    other = instance_make(plain, 1, dead)
    instance_make(kept, 2, alive)
    _silent(dead, 3)
    assert daemons_mark_unreachable() == []  # not yet dead_after (6 s)
    _silent(dead, 7)
    assert daemons_mark_unreachable() == [dead.id]
    node.refresh_from_db()
    other.refresh_from_db()
    assert node.state == JobInstance.State.LOST and node.exit_reason == "daemon dead unreachable for 7 s"
    assert other.state == JobInstance.State.RUNNING  # waits for its daemon or the unseen timeout
    assert daemons_mark_unreachable() == []  # once


def test_nothing_is_unreachable_while_the_controller_hears_from_no_daemon_or_just_started(student, monkeypatch) -> None:
    dead, _ = daemon_make("dead")
    kept = job_make(student, state=Job.State.RUNNING, nodes=1)
    Job.objects.filter(id=kept.id).update(keep_population=True, churn_positions=1, churn_epoch=time.time())
    instance_make(kept, 1, dead)
    _silent(dead, 60)
    monkeypatch.setattr("daemons.services._web_started", lambda: 0.0)
    assert daemons_mark_unreachable() == []  # every daemon silent: the controller is cut off
    alive, _ = daemon_make("alive")
    web_started_record()  # the web process just restarted: daemons are reconnecting
    monkeypatch.undo()
    assert daemons_mark_unreachable() == []


async def test_nodes_replaced_while_their_daemon_was_away_are_freed_when_it_returns(student) -> None:
    daemon, key = await db(daemon_make)(session="s-1")
    job = await db(job_make)(student, state=Job.State.RUNNING, nodes=2)
    await db(instance_make)(job, 1, daemon, state=JobInstance.State.LOST, port=20001)
    await db(instance_make)(job, 2, daemon, port=20002)
    splayd = FakeSplayd(key, session="s-1", instances=[{"job": job.id, "node": 1, "state": "RUNNING"},
                                                       {"job": job.id, "node": 2, "state": "RUNNING"}])
    await splayd.connect()
    free = await splayd.expect("free")
    assert (free["job"], free["ports"]) == (job.id, [20001])
    await splayd.close()


def test_contacts_of_many_daemons_are_one_statement_and_spare_replaced_connections(
        django_assert_num_queries) -> None:
    from daemons.services import Contact, daemons_touch

    here, _ = daemon_make("here", channel_name="chan-here", state=Daemon.State.UNSEEN)
    moved, _ = daemon_make("moved", channel_name="chan-new")  # reconnected meanwhile
    Daemon.objects.filter(id__in=[here.id, moved.id]).update(last_contact=timezone.now() - timedelta(seconds=60))
    with django_assert_num_queries(1):
        updated = daemons_touch(contacts=[Contact(here.id, "chan-here", 12, 0.5, None),
                                          Contact(moved.id, "chan-old", 99, 3.0, 1.0)])
    assert updated == 1
    here.refresh_from_db()
    moved.refresh_from_db()
    assert (here.state, here.acked_seq, here.load, here.rtt_ms) == (Daemon.State.ONLINE, 12, 0.5, None)
    assert (timezone.now() - here.last_contact).total_seconds() < 5
    assert moved.acked_seq == 0 and (timezone.now() - moved.last_contact).total_seconds() > 50


def test_going_unavailable_loses_the_reserved_slots_the_daemon_dropped(student) -> None:
    from daemons.services import daemon_availability_set

    daemon, _ = daemon_make("laptop")
    job = job_make(student, state=Job.State.RUNNING, nodes=2)
    running = instance_make(job, 1, daemon)
    spare = instance_make(job, 2, daemon, state=JobInstance.State.RESERVED)
    assert daemon_availability_set(daemon_id=daemon.id, available=False,
                                   reason="owner active: terminal /dev/pts/0 used 1 s ago") == [spare.id]
    spare.refresh_from_db()
    running.refresh_from_db()
    daemon.refresh_from_db()
    assert spare.state == JobInstance.State.LOST
    assert spare.exit_reason == "evicted: owner active: terminal /dev/pts/0 used 1 s ago"
    assert running.state == JobInstance.State.RUNNING  # the daemon reports its own evictions
    assert not daemon.available and daemon.unavailable_reason.startswith("owner active")
    assert daemon_availability_set(daemon_id=daemon.id, available=True, reason="") == []
    daemon.refresh_from_db()
    assert daemon.available and daemon.unavailable_reason == ""
