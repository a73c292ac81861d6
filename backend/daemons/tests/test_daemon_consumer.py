"""DaemonConsumer on /ws/daemon/: hello authentication, sessions, frames from splayd."""
import asyncio
import json
import time

import pytest
from channels.db import database_sync_to_async as db
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from daemons.commands import daemon_group
from daemons.models import Daemon
from daemons.tests.factories import daemon_make
from daemons.tests.wsdaemon import FakeSplayd
from jobs.models import Job, JobInstance
from jobs.tests.factories import instance_make, job_make
from logs.models import LogLine
from logs.publisher import LIVE_VIEW_LAYER
from metrics.models import MetricChunk, MetricSeries
from splaylab.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


async def test_unknown_key_is_refused_with_close_code_4001() -> None:
    ws = WebsocketCommunicator(application, "/ws/daemon/")
    assert (await ws.connect())[0]
    await ws.send_json_to({"type": "hello", "name": "intruder", "key": "not-a-key", "session": None})
    assert await ws.receive_json_from(timeout=5) == {"type": "refused", "reason": "unknown daemon key"}
    assert await ws.receive_output(timeout=5) == {"type": "websocket.close", "code": 4001}


async def test_first_frame_must_be_hello() -> None:
    daemon, key = await db(daemon_make)()
    ws = WebsocketCommunicator(application, "/ws/daemon/")
    await ws.connect()
    await ws.send_json_to({"type": "heartbeat", "running": 0, "key": key})
    assert (await ws.receive_json_from(timeout=5))["type"] == "refused"
    assert (await ws.receive_output(timeout=5))["code"] == 4001


async def test_hello_with_key_is_welcomed_and_recorded(student) -> None:
    daemon, key = await db(daemon_make)("lab-7", state=Daemon.State.OFFLINE, max_instances=1)
    splayd = FakeSplayd(key, max_instances=42, ports=(31000, 31099))
    welcome = await splayd.connect()
    assert welcome["type"] == "welcome" and welcome["daemon"] == daemon.id
    assert welcome["heartbeat"] == 2 and welcome["dead_after"] == 6 and len(welcome["session"]) == 32
    assert welcome["acked"] == 0 and isinstance(welcome["blacklist"], list)
    await db(daemon.refresh_from_db)()
    assert daemon.state == Daemon.State.ONLINE
    assert (daemon.max_instances, daemon.port_lo, daemon.port_hi) == (42, 31000, 31099)
    assert daemon.session == welcome["session"] and daemon.ip == "127.0.0.1"
    assert daemon.sandbox == "bwrap"
    await splayd.close()
    await db(daemon.refresh_from_db)()
    assert daemon.state == Daemon.State.OFFLINE


async def test_commands_reach_the_daemon_and_replies_go_back_to_reply_to() -> None:
    daemon, key = await db(daemon_make)()
    splayd = FakeSplayd(key)
    await splayd.connect()
    layer = get_channel_layer()
    reply_to = await layer.new_channel()
    command = {"type": "free", "ref": "r-1", "job": 3, "ports": [20001]}
    await layer.group_send(daemon_group(daemon.id),
                           {"type": "daemon.command", "command": command, "reply_to": reply_to})
    assert await splayd.expect("free") == command
    await splayd.reply(command, note="done")
    relayed = await asyncio.wait_for(layer.receive(reply_to), 5)
    assert relayed == {"type": "daemon.reply", "daemon": daemon.id, "ref": "r-1",
                       "reply": {"type": "reply", "ref": "r-1", "ok": True, "note": "done"}}
    await splayd.close()


async def test_log_frames_are_stored_once_for_the_daemons_nodes(student) -> None:
    daemon, key = await db(daemon_make)(session="s-1")
    job = await db(job_make)(student, state=Job.State.RUNNING)
    await db(instance_make)(job, 1, daemon)
    splayd = FakeSplayd(key, session="s-1", instances=[{"job": job.id, "node": 1, "state": "RUNNING"}])
    await splayd.connect()
    layer = get_channel_layer(LIVE_VIEW_LAYER)  # where the job page listens
    browser = await layer.new_channel()
    await layer.group_add(f"job-{job.id}", browser)
    now = time.time()
    batch = {"type": "log", "job": job.id, "lines": [
        {"node": 1, "seq": 1, "t": now, "level": "print", "text": "hello"},
        {"node": 1, "seq": 2, "t": now, "level": "bogus", "text": "odd level"},
        {"node": 2, "seq": 1, "t": now, "level": "info", "text": "node 2 is not on this daemon"}]}
    await splayd.send(batch)
    await splayd.send(batch)  # a resend after reconnect must not duplicate
    await splayd.send({"type": "heartbeat", "running": 1})
    await asyncio.sleep(0.5)
    rows = await db(lambda: list(LogLine.objects.filter(job=job).values_list("node", "seq", "level", "text")))()
    assert rows == [(1, 1, "print", "hello"), (1, 2, "info", "odd level")]
    published = await asyncio.wait_for(layer.receive(browser), 5)
    assert published["type"] == "log.lines"
    lines = json.loads(published["text"])["lines"]  # the browser's JSON, encoded once (logs/payloads.py)
    ids = await db(lambda: list(LogLine.objects.filter(job=job).values_list("id", flat=True)))()
    assert [ln["id"] for ln in lines] == ids
    assert lines[0] == {"id": ids[0], "node": 1, "seq": 1, "t": now, "level": "print",
                                     "text": "hello"}
    await splayd.close()


async def test_metric_records_become_chunks_published_live_and_bad_ones_warnings(student) -> None:
    daemon, key = await db(daemon_make)(session="s-1")
    job = await db(job_make)(student, state=Job.State.RUNNING)
    await db(instance_make)(job, 1, daemon)
    splayd = FakeSplayd(key, session="s-1", instances=[{"job": job.id, "node": 1, "state": "RUNNING"}])
    await splayd.connect()
    layer = get_channel_layer(LIVE_VIEW_LAYER)
    browser = await layer.new_channel()
    await layer.group_add(f"job-{job.id}", browser)
    now = time.time()
    batch = {"type": "log", "job": job.id, "lines": [
        {"node": 1, "seq": 1, "t": now, "level": "metric",
         "text": '{"name":"lookup_latency","value":0.25,"type":"observe","fields":{"hops":3}}'},
        {"node": 1, "seq": 2, "t": now, "level": "print", "text": "between"},
        {"node": 1, "seq": 3, "t": now, "level": "metric", "text": '{"name":"lookup_latency","value":null}'}]}
    await splayd.send(batch)
    await splayd.send(batch)  # a resend after reconnect must not count twice
    await splayd.send({"type": "heartbeat", "running": 1})
    published = [await asyncio.wait_for(layer.receive(browser), 5) for _ in range(2)]
    with pytest.raises(asyncio.TimeoutError):  # the resent batch stores nothing: nothing to publish
        await asyncio.wait_for(layer.receive(browser), 1)
    chunk_messages = [m for m in published if m["type"] == "metric.chunks"]
    assert len(chunk_messages) == 1
    [log_message] = [m for m in published if m["type"] == "log.lines"]
    assert [ln["seq"] for ln in json.loads(log_message["text"])["lines"]] == [2, 3]
    [chunk] = json.loads(chunk_messages[0]["text"])["chunks"]
    assert (chunk["node"], chunk["name"], chunk["value"], chunk["fields"]) == ([1], "lookup_latency", [0.25], [{"hops": 3}])
    assert await db(lambda: MetricChunk.objects.filter(job=job).count())() == 1
    assert await db(lambda: MetricSeries.objects.get(job=job).count)() == 1
    rows = await db(lambda: list(LogLine.objects.filter(job=job).values_list("seq", "level", "text")))()
    assert rows == [(2, "print", "between"),
                    (3, "warning", 'metric record dropped (value must be a finite number): '
                                   '{"name":"lookup_latency","value":null}')]
    await splayd.close()


async def test_instance_frames_update_the_instance_and_end_the_job(student) -> None:
    daemon, key = await db(daemon_make)(session="s-1")
    job = await db(job_make)(student, state=Job.State.RUNNING, nodes=1)
    inst = await db(instance_make)(job, 1, daemon)
    splayd = FakeSplayd(key, session="s-1", instances=[{"job": job.id, "node": 1, "state": "RUNNING"}])
    await splayd.connect()
    await splayd.send({"type": "instance", "job": job.id, "node": 1, "state": "FAILED",
                       "exit_code": 1, "reason": "app.lua:3: attempt to call a nil value"})
    for _ in range(50):
        await db(job.refresh_from_db)()
        if job.state != Job.State.RUNNING:
            break
        await asyncio.sleep(0.05)
    await db(inst.refresh_from_db)()
    assert (inst.state, inst.exit_code) == (JobInstance.State.FAILED, 1)
    assert job.state == Job.State.FAILED
    assert job.reason == "instance failed; node 1: app.lua:3: attempt to call a nil value"
    assert job.error_line == 3
    await splayd.close()


async def test_resume_keeps_listed_instances_and_loses_the_others(student) -> None:
    daemon, key = await db(daemon_make)(session="s-1")
    job = await db(job_make)(student, state=Job.State.RUNNING, nodes=2)
    kept = await db(instance_make)(job, 1, daemon)
    gone = await db(instance_make)(job, 2, daemon)
    reserved = await db(instance_make)(job, 3, daemon, state=JobInstance.State.RESERVED)
    splayd = FakeSplayd(key, session="s-1",
                        instances=[{"job": job.id, "node": 1, "state": "RUNNING"}])
    welcome = await splayd.connect()
    assert welcome["session"] == "s-1"
    await db(kept.refresh_from_db)()
    await db(gone.refresh_from_db)()
    assert kept.state == JobInstance.State.RUNNING
    assert gone.state == JobInstance.State.LOST
    assert "no longer runs it" in gone.exit_reason
    await db(reserved.refresh_from_db)()
    assert reserved.state == JobInstance.State.RESERVED  # not started yet: nothing to list
    await splayd.close()


async def test_new_session_loses_previous_instances_and_stops_stale_jobs(student) -> None:
    daemon, key = await db(daemon_make)(session="old")
    job = await db(job_make)(student, state=Job.State.RUNNING, nodes=1)
    inst = await db(instance_make)(job, 1, daemon)
    splayd = FakeSplayd(key, session=None, instances=[{"job": job.id, "node": 1, "state": "RUNNING"}])
    welcome = await splayd.connect()
    assert welcome["session"] != "old"
    # The controller gave up on job's node 1, so the daemon is told to stop it.
    stop = await splayd.expect("stop")
    assert stop["job"] == job.id
    await db(inst.refresh_from_db)()
    await db(job.refresh_from_db)()
    assert inst.state == JobInstance.State.LOST and "restarted" in inst.exit_reason
    assert job.state == Job.State.FAILED
    await splayd.close()


async def test_a_second_connection_replaces_the_first() -> None:
    daemon, key = await db(daemon_make)()
    first = FakeSplayd(key)
    await first.connect()
    second = FakeSplayd(key, session=first.welcome["session"])
    await second.connect()
    assert await first.ws.receive_output(timeout=5) == {"type": "websocket.close", "code": 4002}
    await first.close()
    await db(daemon.refresh_from_db)()
    assert daemon.state == Daemon.State.ONLINE  # the old socket closing does not mark it OFFLINE
    await second.close()
