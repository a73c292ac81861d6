"""`trace` and `probe` records in a daemon's `log` frames, through the real DaemonConsumer."""
from __future__ import annotations

import pytest
from channels.db import database_sync_to_async as db

from daemons.tests.factories import daemon_make
from daemons.tests.wsdaemon import FakeSplayd
from jobs.models import Job
from jobs.tests.factories import instance_make, job_make
from logs.models import LogLine
from traces.models import ProbeChunk, TraceChunk
from traces.selectors import trace_summary

from .fixtures import ROWS, T0, probe_line, trace_line

pytestmark = pytest.mark.django_db(transaction=True)


async def test_trace_and_probe_lines_are_stored_once_apart_from_the_log(student) -> None:
    daemon, key = await db(daemon_make)(session="s-1")
    job = await db(job_make)(student, state=Job.State.RUNNING, nodes=2, trace={"max_events": 20000})
    await db(instance_make)(job, 1, daemon)
    await db(instance_make)(job, 2, daemon)
    splayd = FakeSplayd(key, session="s-1", instances=[{"job": job.id, "node": k, "state": "RUNNING"}
                                                       for k in (1, 2)])
    await splayd.connect()
    batch = {"type": "log", "job": job.id, "lines": [
        trace_line(1, 1, ROWS[1]),
        {"node": 1, "seq": 2, "t": T0, "level": "print", "text": "looked up"},
        probe_line(1, 3, "lookup", {"owner": 2}),
        trace_line(2, 1, ROWS[2]),
        {"node": 2, "seq": 2, "t": T0, "level": "trace", "text": "rows?"},
    ]}
    await splayd.send(batch)
    await splayd.send(batch)  # resent after a reconnection: counted once
    await splayd.send({"type": "heartbeat", "running": 2})
    await splayd.expect("ack")
    await splayd.close()
    assert await db(lambda: list(TraceChunk.objects.filter(job=job).values_list("node", "size")))() == [(1, 4), (2, 2)]
    assert await db(lambda: ProbeChunk.objects.get(job=job).records)() == [
        {"t": T0 + 2, "name": "lookup", "value": {"owner": 2}, "fields": None}]
    totals = (await db(trace_summary)(job=job))["totals"]
    assert (totals["rows"], totals["messages_out"], totals["messages_in"]) == (6, 4, 1)
    logged = await db(lambda: list(LogLine.objects.filter(job=job).values_list("node", "seq", "level", "text")))()
    assert logged == [(1, 2, "print", "looked up"), (2, 2, "warning", "trace record dropped (not JSON): rows?")]
