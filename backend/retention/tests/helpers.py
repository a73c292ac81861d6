"""Jobs with known raw data for the retention tests: log lines, metric chunks (through the
metric ingest), trace and probe chunks (through the trace ingest)."""
from __future__ import annotations

import json
import secrets
from datetime import datetime, timedelta

from django.db import connection
from django.utils import timezone

from accounts.models import User
from jobs.models import Job, JobInstance
from jobs.tests.factories import job_make
from logs.models import LogLine
from metrics.services import metric_lines_ingest
from traces.services import trace_lines_ingest
from traces.tests.fixtures import ROWS, probe_line, trace_line


def ended_job(owner: User, *, ended: timedelta, **extra: object) -> Job:
    """An ENDED job whose end was `ended` ago, with one ENDED instance."""
    end = timezone.now() - ended
    job = job_make(owner, state=Job.State.ENDED, started_at=end - timedelta(seconds=30), ended_at=end, **extra)
    JobInstance.objects.create(job=job, node=1, state=JobInstance.State.ENDED, exit_reason="normal end")
    return job


def logs_add(job: Job, count: int, *, text_bytes: int = 40, node: int = 1, first_seq: int = 1) -> None:
    LogLine.objects.bulk_create([
        LogLine(job=job, node=node, seq=seq, t=1_700_000_000.0 + seq, level="print",
                text=f"line {seq} " + secrets.token_hex(text_bytes // 2))  # random: no compression
        for seq in range(first_seq, first_seq + count)], batch_size=2000)


def metrics_add(job: Job, batches: int = 2) -> None:
    for b in range(batches):
        metric_lines_ingest(job_id=job.id, nodes=None, raw_lines=[
            {"node": 1, "seq": 1000 + b, "t": 1_700_000_100.0 + b, "level": "metric",
             "text": json.dumps({"name": "lookup_latency", "value": 0.01 * (b + 1), "type": "observe",
                                 "fields": {"hops": b + 1}})}])


def traces_add(job: Job) -> None:
    for node, rows in ROWS.items():
        trace_lines_ingest(job_id=job.id, nodes=None, raw_lines=[trace_line(node, 2000, rows)])
    trace_lines_ingest(job_id=job.id, nodes=None, raw_lines=[probe_line(1, 2001, "lookup", 1.5, {"hops": 2})])


def full_job(owner: User, *, ended: timedelta, lines: int = 20, **extra: object) -> Job:
    job = ended_job(owner, ended=ended, **extra)
    logs_add(job, lines)
    metrics_add(job)
    traces_add(job)
    return job


def stored_bytes(model, job: Job) -> int:
    """Every column's stored size over the job's rows, added up here (the sweep's own sum is
    what is checked)."""
    cols = [f.column for f in model._meta.concrete_fields]
    with connection.cursor() as cur:
        cur.execute(f"SELECT {', '.join(f'COALESCE(SUM(pg_column_size({c})), 0)' for c in cols)} "
                    f"FROM {model._meta.db_table} WHERE job_id = %s", [job.id])
        return int(sum(cur.fetchone()))


def ago(days: float = 0, hours: float = 0) -> datetime:
    return timezone.now() - timedelta(days=days, hours=hours)
