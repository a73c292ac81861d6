"""JobConsumer on /ws/jobs/<id>/ (session auth, permission on connect and per message)."""
import asyncio
import json

import pytest
from channels.db import database_sync_to_async as db
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import OperationalError
from django.test import Client

from accounts.tests.factories import PASSWORD
from courses.tests.factories import course_with
from jobs.models import Job
from jobs.tests.factories import job_make
from logs.payloads import log_lines_message
from logs.publisher import LIVE_VIEW_LAYER, log_lines_publish, metric_chunks_publish
from splaylab.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


def _session_cookie(username: str) -> bytes:
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _browser(job_id: int, username: str | None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if username:
        headers.append((b"cookie", await db(_session_cookie)(username)))
    return WebsocketCommunicator(application, f"/ws/jobs/{job_id}/", headers=headers)


async def test_owner_gets_state_then_relayed_messages(student) -> None:
    job = await db(job_make)(student, state=Job.State.RUNNING)
    ws = await _browser(job.id, "student")
    connected, _ = await ws.connect()
    assert connected
    first = await ws.receive_json_from(timeout=5)
    assert first["type"] == "job.state"
    assert (first["job"]["id"], first["job"]["state"], first["job"]["instances"]) == (job.id, "RUNNING", [])

    layer = get_channel_layer(LIVE_VIEW_LAYER)
    lines = [{"id": 9, "node": 1, "seq": 1, "t": 1.5, "level": "print", "text": "hi"}]
    await log_lines_publish(job.id, lines)
    assert await ws.receive_json_from(timeout=5) == {"type": "log.lines", "lines": lines}
    chunks = [{"id": 3, "name": "rtt", "kind": "observe", "node": [1], "t": [1.5], "value": [0.1], "fields": None}]
    await metric_chunks_publish(job.id, chunks)
    assert await ws.receive_json_from(timeout=5) == {"type": "metric.chunks", "chunks": chunks}
    await layer.group_send(f"job-{job.id}", {"type": "job.state", "job": {"id": job.id, "state": "ENDED"}})
    assert await ws.receive_json_from(timeout=5) == {"type": "job.state",
                                                     "job": {"id": job.id, "state": "ENDED"}}
    await ws.disconnect()


async def test_state_changes_are_published_to_the_page(student) -> None:
    from jobs.services import job_state_set

    job = await db(job_make)(student, state=Job.State.RUNNING)
    ws = await _browser(job.id, "student")
    await ws.connect()
    await ws.receive_json_from(timeout=5)
    await db(job_state_set)(job.id, expect=[Job.State.RUNNING], to=Job.State.ENDED, reason="done")
    message = await ws.receive_json_from(timeout=5)
    assert message["type"] == "job.state"
    assert (message["job"]["state"], message["job"]["reason"]) == ("ENDED", "done")
    assert message["job"]["ended_at"] is not None
    await ws.disconnect()


async def test_a_state_nobody_watches_is_not_built_and_a_page_opened_later_has_it(student) -> None:
    """logs.publisher.job_watched: with no page open, a state change neither fetches nor
    serializes the job; a page opened afterwards gets the new state on connect, and from then
    on every change live."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from jobs.services import job_state_set
    from logs.publisher import job_watched

    job = await db(job_make)(student, state=Job.State.QUEUED)
    assert not await db(job_watched)(job.id)

    def unwatched_change() -> list[str]:
        with CaptureQueriesContext(connection) as queries:
            job_state_set(job.id, expect=[Job.State.QUEUED], to=Job.State.REGISTERING)
        return [q["sql"] for q in queries]
    sql = await db(unwatched_change)()
    assert sql and not any("jobs_jobinstance" in q for q in sql)  # the update, no publish's fetch

    ws = await _browser(job.id, "student")
    await ws.connect()
    assert (await ws.receive_json_from(timeout=5))["job"]["state"] == "REGISTERING"
    assert await db(job_watched)(job.id)
    await db(job_state_set)(job.id, expect=[Job.State.REGISTERING], to=Job.State.RUNNING)
    message = await ws.receive_json_from(timeout=5)
    assert (message["type"], message["job"]["state"]) == ("job.state", "RUNNING")
    await ws.disconnect()
    assert not await db(job_watched)(job.id)


async def test_churn_events_reach_the_page_on_the_live_layer(student) -> None:
    """Published from sync code (jobs.churn_events.churn_event_add, after commit), like job states,
    on the layer the page listens on: a churn job's page sees its nodes come and go live."""
    from jobs.churn_events import churn_event_add

    job = await db(job_make)(student, state=Job.State.RUNNING)
    ws = await _browser(job.id, "student")
    await ws.connect()
    await ws.receive_json_from(timeout=5)
    await db(churn_event_add)(job, node=2, event="join", t=1.5, planned=1.5)
    message = await ws.receive_json_from(timeout=5)
    assert message["type"] == "churn.events"
    assert [(ev["node"], ev["event"], ev["t"]) for ev in message["events"]] == [(2, "join", 1.5)]
    await ws.disconnect()


async def test_teacher_may_watch_a_students_job(student, teacher) -> None:
    await db(course_with)(instructors=(teacher,), students=(student,))
    job = await db(job_make)(student)
    ws = await _browser(job.id, "teacher")
    assert (await ws.connect())[0]
    await ws.disconnect()


@pytest.mark.parametrize("viewer", [None, "alice"])
async def test_anonymous_and_other_students_are_refused(student, other_student, viewer) -> None:
    job = await db(job_make)(student)
    ws = await _browser(job.id, viewer)
    connected, code = await ws.connect()
    assert not connected and code == 4403


async def test_permission_is_rechecked_per_message(student, settings) -> None:
    settings.SPLAYLAB_VIEW_RECHECK_SECONDS = 0
    job = await db(job_make)(student)
    ws = await _browser(job.id, "student")
    await ws.connect()
    await ws.receive_json_from(timeout=5)
    student.is_active = False  # e.g. account disabled while watching
    await db(student.save)()
    await log_lines_publish(job.id, [{"id": 1, "node": 1, "seq": 1, "t": 0.5, "level": "print", "text": "x"}])
    assert await ws.receive_output(timeout=5) == {"type": "websocket.close", "code": 4403}


async def test_a_viewer_whose_writer_fails_is_closed_to_reconnect(student, settings, monkeypatch) -> None:
    """The permission re-check failing (database away) closes the socket with 1011, which the
    page retries, instead of leaving it open and fed nothing."""
    settings.SPLAYLAB_VIEW_RECHECK_SECONDS = 0
    job = await db(job_make)(student)
    ws = await _browser(job.id, "student")
    await ws.connect()
    await ws.receive_json_from(timeout=5)

    def database_away(**kwargs) -> bool:
        raise OperationalError("the database is away")

    monkeypatch.setattr("logs.consumers.job_visible", database_away)
    await log_lines_publish(job.id, [{"id": 1, "node": 1, "seq": 1, "t": 0.5, "level": "print", "text": "x"}])
    assert await ws.receive_output(timeout=5) == {"type": "websocket.close", "code": 1011}


async def test_permission_check_is_cached_between_messages(student, settings) -> None:
    settings.SPLAYLAB_VIEW_RECHECK_SECONDS = 60
    job = await db(job_make)(student)
    ws = await _browser(job.id, "student")
    await ws.connect()
    await ws.receive_json_from(timeout=5)
    for n in range(3):
        await log_lines_publish(job.id, [{"id": n, "node": 1, "seq": n + 1, "t": 0.5, "level": "print", "text": "x"}])
        assert (await ws.receive_json_from(timeout=5))["lines"][0]["id"] == n
    student.is_active = False  # within the recheck window the viewer keeps its stream
    await db(student.save)()
    await log_lines_publish(job.id, [{"id": 3, "node": 1, "seq": 4, "t": 0.5, "level": "print", "text": "x"}])
    assert (await ws.receive_json_from(timeout=5))["type"] == "log.lines"
    await ws.disconnect()


async def test_log_batch_is_encoded_once_and_relayed_verbatim(student) -> None:
    """Every subscriber gets the publisher's text byte for byte: the consumer does not re-encode."""
    job = await db(job_make)(student, state=Job.State.RUNNING)
    pages = [await _browser(job.id, "student") for _ in range(2)]
    for ws in pages:
        assert (await ws.connect())[0]
        assert (await ws.receive_json_from(timeout=5))["type"] == "job.state"
    lines = [{"id": 7, "node": 2, "seq": 5, "t": 2.25, "level": "print", "text": "caf\u00e9 \u0000 \"q\""}]
    await log_lines_publish(job.id, lines)
    expected = log_lines_message(job.id, lines)["text"]
    assert json.loads(expected) == {"type": "log.lines", "lines": lines}
    for ws in pages:
        assert await ws.receive_from(timeout=5) == expected
        await ws.disconnect()


async def _watching(job_id: int, viewers: int) -> list[WebsocketCommunicator]:
    pages = [await _browser(job_id, "student") for _ in range(viewers)]
    for ws in pages:
        assert (await ws.connect())[0]
        assert (await ws.receive_json_from(timeout=5))["type"] == "job.state"
    return pages


def _batch(k: int, nodes: int = 4, per_node: int = 5) -> list[dict]:
    """Batch k: `per_node` lines of each node, seqs continuing from batch k-1; ids unique."""
    return [{"id": 1 + k * nodes * per_node + n * per_node + i, "node": n + 1, "seq": 1 + k * per_node + i,
             "t": 1.0, "level": "print", "text": f"b{k} n{n + 1} {i}"}
            for n in range(nodes) for i in range(per_node)]


async def test_many_viewers_each_get_every_line_once_when_batches_are_merged(student, settings) -> None:
    """Batches published while a viewer's last frame is recent are merged into its next frame;
    each of the viewers still gets every line exactly once, each node's lines in seq order."""
    settings.SPLAYLAB_VIEW_FRAME_SECONDS = 0.3
    job = await db(job_make)(student, state=Job.State.RUNNING)
    pages = await _watching(job.id, 12)
    batches = [_batch(k) for k in range(40)]
    for batch in batches:
        await log_lines_publish(job.id, batch)
    expected = [ln for b in batches for ln in b]
    for ws in pages:
        got: list[dict] = []
        frames = 0
        while len(got) < len(expected):
            message = await ws.receive_json_from(timeout=5)
            assert message["type"] == "log.lines"
            got += message["lines"]
            frames += 1
        assert sorted(got, key=lambda ln: ln["id"]) == expected  # every line, none twice
        for node in range(1, 5):
            seqs = [ln["seq"] for ln in got if ln["node"] == node]
            assert seqs == sorted(seqs)
        assert frames < len(batches)  # merged: the first batch at once, the rest after 0.3 s
    await asyncio.sleep(0.5)
    for ws in pages:
        assert await ws.receive_nothing(timeout=0.05)  # nothing sent twice, later
        await ws.disconnect()


async def test_a_viewer_too_far_behind_is_told_which_lines_were_skipped(student, settings) -> None:
    """Past SPLAYLAB_VIEW_BACKLOG_BYTES of pending lines, a viewer gets a log.skipped frame
    naming, per node, the id and seq ranges of what it was not sent; received + skipped = all,
    each once."""
    settings.SPLAYLAB_VIEW_FRAME_SECONDS = 0.5
    settings.SPLAYLAB_VIEW_BACKLOG_BYTES = 3 * len(log_lines_message(1, _batch(9))["text"])
    job = await db(job_make)(student, state=Job.State.RUNNING)
    [ws] = await _watching(job.id, 1)
    batches = [_batch(k) for k in range(10)]
    for batch in batches:
        await log_lines_publish(job.id, batch)
    got: list[dict] = []
    skipped: list[dict] = []
    missing = 0
    while len(got) + missing < 200:
        message = await ws.receive_json_from(timeout=5)
        if message["type"] == "log.skipped":
            skipped.append(message)
            missing += message["skipped"]
        else:
            got += message["lines"]
    assert len(skipped) == 1 and missing > 0
    got_ids = [ln["id"] for ln in got]
    assert len(got_ids) == len(set(got_ids))
    absent = [ln for b in batches for ln in b if ln["id"] not in set(got_ids)]
    assert len(absent) == missing
    gaps = {gap["node"]: gap for gap in skipped[0]["gaps"]}
    for line in absent:
        gap = gaps[line["node"]]
        assert gap["after_id"] < line["id"] < gap["before_id"] and gap["from_seq"] <= line["seq"] <= gap["to_seq"]
    for line in got:  # a gap names no line the viewer did get
        gap = gaps.get(line["node"])
        assert gap is None or not gap["from_seq"] <= line["seq"] <= gap["to_seq"]
    await ws.disconnect()
