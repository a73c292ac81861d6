"""JobConsumer on /ws/jobs/<id>/ (session auth, permission on connect and per message)."""
import json

import pytest
from channels.db import database_sync_to_async as db
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.tests.factories import PASSWORD
from courses.tests.factories import course_with
from jobs.models import Job
from jobs.tests.factories import job_make
from logs.payloads import log_lines_message
from logs.publisher import log_lines_publish, metric_chunks_publish
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

    layer = get_channel_layer()
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
