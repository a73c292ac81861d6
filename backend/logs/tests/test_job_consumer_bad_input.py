"""Whatever a browser sends on /ws/jobs/<id>/ (not JSON, JSON nested too deep for Python's json)
is never parsed: the page stays subscribed (issue 20: bad input never crashes a consumer)."""
import pytest
from channels.db import database_sync_to_async as db

from jobs.models import Job
from jobs.tests.factories import job_make
from logs.publisher import log_lines_publish
from logs.tests.test_job_consumer import _browser

pytestmark = pytest.mark.django_db(transaction=True)


async def test_garbage_from_the_page_is_ignored_and_relays_continue(student) -> None:
    job = await db(job_make)(student, state=Job.State.RUNNING)
    ws = await _browser(job.id, "student")
    assert (await ws.connect())[0]
    assert (await ws.receive_json_from(timeout=5))["type"] == "job.state"
    await ws.send_to(text_data="not json {")
    await ws.send_to(text_data="[" * 100_000 + "]" * 100_000)
    lines = [{"id": 1, "node": 1, "seq": 1, "t": 0.5, "level": "print", "text": "still here"}]
    await log_lines_publish(job.id, lines)
    assert await ws.receive_json_from(timeout=5) == {"type": "log.lines", "lines": lines}
    await ws.disconnect()
