"""Writes of retention: measure what jobs store, prune what their policy no longer keeps, and
mark a job "keep". Beat runs `retention_sweep` (tasks.py); `manage.py retention_sweep` runs the
same by hand.

Pruning deletes rows in batches of SPLAYLAB_RETENTION_BATCH, each its own short statement
(`DELETE ... WHERE id IN (SELECT id ... ORDER BY id LIMIT n)`), and one sweep deletes at most
SPLAYLAB_RETENTION_SWEEP_ROWS rows: the tables stay writable for ingest, and a backlog is worked
off over the following sweeps. What is pruned: log lines, metric chunks, trace and probe chunks.
What stays: the job row, its instances and churn events, its metric series and trace summary
(the aggregates the job page and the grader's comparisons read) and a note saying why."""
from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import F, Q
from django.utils import timezone
from rest_framework.exceptions import PermissionDenied

from accounts.models import User
from jobs.models import Job
from logs.models import LogLine
from metrics.models import MetricChunk
from traces.models import ProbeChunk, TraceChunk

from .models import JobRetention
from .selectors import MB, RetentionPolicy, job_end, may_keep, owner_policy


@dataclass(frozen=True)
class RawKind:
    """One table of a job's raw data, in the order the size rule prunes them: the trace and the
    metrics keep their summaries (TraceSummary, MetricSeries) when their chunks go; log lines
    have none, so they go last."""
    key: str            # in JobRetention.pruned
    label: str          # in notes, plural
    model: type[models.Model]
    bytes_field: str    # JobRetention's counter it is measured in


RAW_KINDS = (
    RawKind("trace_chunks", "trace chunks", TraceChunk, "trace_bytes"),
    RawKind("probe_chunks", "probe chunks", ProbeChunk, "trace_bytes"),
    RawKind("metric_chunks", "metric chunks", MetricChunk, "metric_bytes"),
    RawKind("log_lines", "log lines", LogLine, "log_bytes"),
)

# A lock of its own in PostgreSQL's advisory lock space: one sweep at a time, whatever the
# number of beat or worker processes (a slow sweep must not overlap the next one).
SWEEP_LOCK_KEY = 0x5E7E_4710


@dataclass
class RowBudget:
    """Rows one sweep may still delete."""
    rows: int

    @property
    def spent(self) -> bool:
        return self.rows <= 0


@dataclass
class SweepReport:
    measured: int = 0
    pruned_by_age: list[int] = field(default_factory=list)
    pruned_by_size: list[int] = field(default_factory=list)
    rows_deleted: int = 0
    bytes_deleted: int = 0
    skipped: bool = False   # another sweep held the lock

    def as_dict(self) -> dict:
        return {"measured": self.measured, "pruned_by_age": self.pruned_by_age,
                "pruned_by_size": self.pruned_by_size, "rows_deleted": self.rows_deleted,
                "bytes_deleted": self.bytes_deleted, "skipped": self.skipped}


# --- measuring ---------------------------------------------------------------------------

def row_bytes_sql(model: type[models.Model], alias: str) -> str:
    """A row's size as the sum of its columns' stored sizes (pg_column_size: compressed values
    as stored; no tuple header, no index). Column by column, not pg_column_size(t.*): a whole-row
    value's size depends on how the plan forms the tuple, and the measure, the DELETE's
    RETURNING and the tests must agree."""
    cols = [f.column for f in model._meta.concrete_fields]
    return " + ".join(f"COALESCE(pg_column_size({alias}.{c}), 0)" for c in cols)


def _bytes_per_job(model: type[models.Model], job_ids: list[int]) -> dict[int, int]:
    table = model._meta.db_table
    with connection.cursor() as cur:
        cur.execute(f"SELECT job_id, COALESCE(SUM({row_bytes_sql(model, 't')}), 0) FROM {table} t "
                    f"WHERE job_id = ANY(%s) GROUP BY job_id", [job_ids])
        return {job_id: int(size) for job_id, size in cur.fetchall()}


def usage_measure(*, jobs: list[Job], now: datetime | None = None) -> None:
    """The bytes each job stores (row_bytes_sql), one grouped query per table for all of `jobs`."""
    if not jobs:
        return
    now = now or timezone.now()
    ids = [j.id for j in jobs]
    sizes = {kind.key: _bytes_per_job(kind.model, ids) for kind in RAW_KINDS}
    settle = timedelta(seconds=settings.SPLAYLAB_RETENTION_SETTLE)
    for job in jobs:
        settled = job.state in Job.TERMINAL and job_end(job) + settle <= now
        JobRetention.objects.update_or_create(job_id=job.id, defaults={
            "log_bytes": sizes["log_lines"].get(job.id, 0),
            "metric_bytes": sizes["metric_chunks"].get(job.id, 0),
            "trace_bytes": sizes["trace_chunks"].get(job.id, 0) + sizes["probe_chunks"].get(job.id, 0),
            "measured_at": now, "settled": settled})


def usage_measure_due(*, now: datetime | None = None, limit: int | None = None) -> int:
    """Measure the jobs whose counts may still change (never measured, or not settled), least
    recently measured first; a settled job is measured again only after a prune."""
    limit = limit or settings.SPLAYLAB_RETENTION_MEASURE_JOBS
    due = list(Job.objects.filter(Q(retention__isnull=True) | Q(retention__settled=False))
               .order_by(F("retention__measured_at").asc(nulls_first=True), "id")
               .only("id", "state", "ended_at", "created_at")[:limit])
    usage_measure(jobs=due, now=now)
    return len(due)


# --- pruning -----------------------------------------------------------------------------

def _delete_oldest(kind: RawKind, job_id: int, limit: int) -> tuple[int, int]:
    """Delete the job's `limit` oldest rows of `kind`: (rows, bytes) deleted."""
    table = kind.model._meta.db_table
    with connection.cursor() as cur:
        cur.execute(f"DELETE FROM {table} WHERE id IN (SELECT id FROM {table} WHERE job_id = %s "
                    f"ORDER BY id LIMIT %s) RETURNING {row_bytes_sql(kind.model, table)}", [job_id, limit])
        sizes = [s for (s,) in cur.fetchall()]
    return len(sizes), sum(sizes)


def _oldest_row_bytes(kind: RawKind, job_id: int) -> float:
    """The mean size of the job's 100 oldest rows of `kind` (the next to go), 0 without rows."""
    table = kind.model._meta.db_table
    with connection.cursor() as cur:
        cur.execute(f"SELECT AVG({row_bytes_sql(kind.model, 't')}) FROM (SELECT * FROM {table} WHERE job_id = %s "
                    f"ORDER BY id LIMIT 100) t", [job_id])
        (mean,) = cur.fetchone()
    return float(mean or 0)


def _counted(pruned: dict, kind: RawKind, rows: int) -> None:
    if rows:
        pruned[kind.key] = pruned.get(kind.key, 0) + rows


def _what(pruned: dict) -> str:
    parts = [f"{pruned[k.key]:,} {k.label}" for k in RAW_KINDS if pruned.get(k.key)]
    return ", ".join(parts) if parts else "nothing"


def _row_for(job: Job) -> JobRetention:
    row, _ = JobRetention.objects.get_or_create(job_id=job.id)
    return row


def job_prune_by_age(*, job: Job, policy: RetentionPolicy, budget: RowBudget, report: SweepReport,
                     now: datetime) -> bool:
    """Delete every log line, metric and trace chunk of the job, batch by batch, within the
    budget; True once nothing is left (the next sweep goes on otherwise)."""
    row = _row_for(job)
    deleted_rows = 0
    done = True
    for kind in RAW_KINDS:
        while True:
            if budget.spent:
                done = False
                break
            asked = min(settings.SPLAYLAB_RETENTION_BATCH, budget.rows)
            rows, size = _delete_oldest(kind, job.id, asked)
            budget.rows -= rows
            report.rows_deleted += rows
            report.bytes_deleted += size
            deleted_rows += rows
            _counted(row.pruned, kind, rows)
            if rows < asked:  # none of this kind left
                break
        if not done:
            break
    if deleted_rows:
        row.pruned_at = now
        row.pruned_note = (f"Logs, metrics and traces pruned on {now:%Y-%m-%d} (retention {policy.days} days "
                           f"after the job ended, {policy.source}): {_what(row.pruned)}. The job's state, "
                           f"instances and summaries are kept.")
        report.pruned_by_age.append(job.id)
    if done:
        row.pruned_all = True
        row.log_bytes = row.metric_bytes = row.trace_bytes = 0
        row.measured_at = now
    row.save()
    return done


def job_prune_by_size(*, job: Job, row: JobRetention, policy: RetentionPolicy, budget: RowBudget,
                      report: SweepReport, now: datetime) -> None:
    """Delete the job's oldest rows, traces first and log lines last, until what it stores is
    under the policy's MB (a batch may take a little more than needed, never a whole table)."""
    limit = policy.max_bytes
    if limit is None:
        return
    excess = row.total_bytes - limit
    deleted_rows = 0
    for kind in RAW_KINDS:
        while excess > 0 and not budget.spent:
            mean = _oldest_row_bytes(kind, job.id)
            if not mean:
                break
            want = min(settings.SPLAYLAB_RETENTION_BATCH, budget.rows, max(1, math.ceil(excess / mean)))
            rows, size = _delete_oldest(kind, job.id, want)
            budget.rows -= rows
            report.rows_deleted += rows
            report.bytes_deleted += size
            deleted_rows += rows
            excess -= size
            _counted(row.pruned, kind, rows)
            setattr(row, kind.bytes_field, max(0, getattr(row, kind.bytes_field) - size))
    if deleted_rows:
        row.pruned_at = now
        row.pruned_note = (f"The oldest {_what(row.pruned)} were pruned on {now:%Y-%m-%d} to keep the job "
                           f"under {policy.max_mb} MB (retention limit, {policy.source}). The job's state, "
                           f"instances and summaries are kept.")
        row.save()
        report.pruned_by_size.append(job.id)


@dataclass
class _Policies:
    """Owners' policies within one sweep (one query per owner, not per job)."""
    cache: dict[int, RetentionPolicy] = field(default_factory=dict)

    def of(self, owner_id: int) -> RetentionPolicy:
        if owner_id not in self.cache:
            self.cache[owner_id] = owner_policy(owner_id=owner_id)
        return self.cache[owner_id]


def prune_by_age(*, now: datetime, budget: RowBudget, report: SweepReport, policies: _Policies) -> None:
    # A job ended at least a day ago (the shortest age rule), not kept, not emptied yet.
    candidates = (Job.objects.filter(state__in=list(Job.TERMINAL))
                  .exclude(retention__keep=True).exclude(retention__pruned_all=True)
                  .filter(Q(ended_at__lte=now - timedelta(days=1))
                          | Q(ended_at__isnull=True, created_at__lte=now - timedelta(days=1)))
                  .only("id", "owner_id", "state", "ended_at", "created_at").order_by("id"))
    for job in candidates.iterator(chunk_size=500):
        if budget.spent:
            return
        policy = policies.of(job.owner_id)
        if policy.days and job_end(job) + timedelta(days=policy.days) <= now:
            job_prune_by_age(job=job, policy=policy, budget=budget, report=report, now=now)


def prune_by_size(*, now: datetime, budget: RowBudget, report: SweepReport, policies: _Policies) -> None:
    # Settled jobs (ended, final counts) above the smallest possible limit, 1 MB.
    rows = (JobRetention.objects.filter(settled=True, keep=False, pruned_all=False)
            .annotate(total=F("log_bytes") + F("metric_bytes") + F("trace_bytes"))
            .filter(total__gt=MB).select_related("job").order_by("job_id"))
    for row in rows.iterator(chunk_size=500):
        if budget.spent:
            return
        policy = policies.of(row.job.owner_id)
        if policy.max_bytes is not None and row.total_bytes > policy.max_bytes:
            job_prune_by_size(job=row.job, row=row, policy=policy, budget=budget, report=report, now=now)


@contextmanager
def _sweep_lock() -> Iterator[bool]:
    with connection.cursor() as cur:
        cur.execute("SELECT pg_try_advisory_lock(%s)", [SWEEP_LOCK_KEY])
        (got,) = cur.fetchone()
    try:
        yield bool(got)
    finally:
        if got:
            with connection.cursor() as cur:
                cur.execute("SELECT pg_advisory_unlock(%s)", [SWEEP_LOCK_KEY])


def retention_sweep(*, now: datetime | None = None, max_rows: int | None = None) -> SweepReport:
    """Measure what is due, then prune by age, then by size, deleting at most `max_rows` rows
    (SPLAYLAB_RETENTION_SWEEP_ROWS)."""
    now = now or timezone.now()
    report = SweepReport()
    with _sweep_lock() as got:
        if not got:
            report.skipped = True
            return report
        report.measured = usage_measure_due(now=now)
        budget = RowBudget(max_rows if max_rows is not None else settings.SPLAYLAB_RETENTION_SWEEP_ROWS)
        policies = _Policies()
        prune_by_age(now=now, budget=budget, report=report, policies=policies)
        prune_by_size(now=now, budget=budget, report=report, policies=policies)
    return report


def job_keep_set(*, user: User, job: Job, keep: bool) -> JobRetention:
    """Staff of the owner's course mark a job "keep" (or lift it): no rule prunes a kept job.
    What was pruned before stays pruned."""
    if not may_keep(user=user, job=job):
        raise PermissionDenied("only the instructors and TAs of the job owner's course may keep a job")
    with transaction.atomic():
        row = _row_for(job)
        row.keep = keep
        row.keep_by = user if keep else None
        row.save(update_fields=["keep", "keep_by"])
    return row
