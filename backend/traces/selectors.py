from __future__ import annotations

from typing import Any

from jobs.models import Job
from lib.trace import NODE_COLUMNS, Summary

from .models import TraceChunk, TraceSummary

API_COLUMNS = NODE_COLUMNS  # the tracing node after `t`


def job_start(job: Job) -> float:
    """Epoch seconds of the job's t = 0: a churn scenario's start, else when the job went
    RUNNING (a simulated job's rows then read in virtual seconds), else its submission."""
    if job.churn_epoch is not None:
        return job.churn_epoch
    return (job.started_at or job.created_at).timestamp()


def trace_rows_after(*, job: Job, after: int = 0, limit: int = 200,
                     node: int | None = None) -> tuple[list[list[Any]], int]:
    """Rows of the chunks after chunk `after` (at most `limit` chunks), each as
    API_COLUMNS with `t` in seconds since job_start; and the last chunk's id (or `after`)."""
    qs = TraceChunk.objects.filter(job=job, id__gt=after)
    if node is not None:
        qs = qs.filter(node=node)
    chunks = list(qs.order_by("id").values_list("id", "node", "rows")[:limit])
    start = job_start(job)
    rows = [[round(r[0] - start, 6), k, *r[1:]] for _, k, chunk_rows in chunks for r in chunk_rows]
    return rows, chunks[-1][0] if chunks else after


def trace_summary(*, job: Job) -> dict[str, Any]:
    row = TraceSummary.objects.filter(job=job).only("state").first()
    return Summary.from_state(row.state if row is not None else None).to_dict()
