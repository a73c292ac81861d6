"""SubmissionsConsumer on /ws/submissions/: a student's pages hear their own submissions change
status (grading.live), nobody else's, and anonymous pages are refused."""
import pytest
from channels.db import database_sync_to_async as db
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.tests.factories import PASSWORD
from grading.services import submission_create, submission_grade, submission_regrade
from grading.tests.factories import REPORT, assignment_make
from splaylab.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


def _session_cookie(username: str) -> bytes:
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _page(username: str | None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if username:
        headers.append((b"cookie", await db(_session_cookie)(username)))
    return WebsocketCommunicator(application, "/ws/submissions/", headers=headers)


async def _statuses(ws: WebsocketCommunicator, n: int) -> list[tuple[int, str]]:
    out = []
    for _ in range(n):
        m = await ws.receive_json_from(timeout=5)
        assert m["type"] == "submission.status"
        out.append((m["submission"]["id"], m["submission"]["status"]))
    return out


async def test_a_student_hears_their_submission_through_its_grading(classroom, no_grading) -> None:
    assignment = await db(assignment_make)(classroom.course)
    mine, theirs = await _page("student"), await _page("alice")
    assert (await mine.connect())[0] and (await theirs.connect())[0]
    assert await mine.receive_json_from(timeout=5) == {"type": "submission.watch", "student": "student"}
    assert await theirs.receive_json_from(timeout=5) == {"type": "submission.watch", "student": "alice"}

    submission = await db(submission_create)(assignment=assignment, student=classroom.student, source="x = 1\n")
    first = await mine.receive_json_from(timeout=5)
    assert first == {"type": "submission.status", "submission": {
        "id": submission.id, "course": classroom.course.id, "assignment": "chord", "status": "queued"}}
    await db(submission_grade)(submission.id, grade=lambda a, s: REPORT)
    assert await _statuses(mine, 2) == [(submission.id, "running"), (submission.id, "graded")]

    # a regrade queues it again; a grading that fails ends in error
    assert await db(submission_regrade)(submission_id=submission.id)
    assert await _statuses(mine, 1) == [(submission.id, "queued")]

    def broken(a, s):
        raise RuntimeError("the grader broke")
    await db(submission_grade)(submission.id, grade=broken)
    assert await _statuses(mine, 2) == [(submission.id, "running"), (submission.id, "error")]

    # another student's page heard none of it
    assert await theirs.receive_nothing(timeout=0.3)
    await mine.disconnect()
    await theirs.disconnect()


async def test_a_worker_that_takes_the_task_at_once_is_heard_after_queued(classroom, monkeypatch) -> None:
    """The push of `queued` leaves before the task is enqueued: a worker free at that moment
    publishes `running` at once, and the page must not hear it before `queued` (CI saw
    ['running', 'queued', 'graded'] once). Here the 'worker' grades inside .delay itself."""
    monkeypatch.setattr("grading.tasks.submission_grade.delay",
                        lambda submission_id: submission_grade(submission_id, grade=lambda a, s: REPORT))
    assignment = await db(assignment_make)(classroom.course)
    mine = await _page("student")
    assert (await mine.connect())[0]
    assert (await mine.receive_json_from(timeout=5))["type"] == "submission.watch"

    submission = await db(submission_create)(assignment=assignment, student=classroom.student, source="x = 1\n")
    assert await _statuses(mine, 3) == [(submission.id, s) for s in ("queued", "running", "graded")]
    assert await db(submission_regrade)(submission_id=submission.id)
    assert await _statuses(mine, 3) == [(submission.id, s) for s in ("queued", "running", "graded")]
    await mine.disconnect()


async def test_a_page_without_a_session_is_refused() -> None:
    ws = await _page(None)
    connected, code = await ws.connect()
    assert (connected, code) == (False, 4403)


async def test_what_the_page_sends_is_ignored(classroom) -> None:
    ws = await _page("student")
    assert (await ws.connect())[0]
    assert (await ws.receive_json_from(timeout=5))["type"] == "submission.watch"
    await ws.send_to(text_data="{not json")
    await ws.send_to(text_data='{"type": "submission.status", "submission": {"id": 1}}')
    assert await ws.receive_nothing(timeout=0.3)
    await ws.disconnect()
