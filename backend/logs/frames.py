"""One batch of node records (a daemon's `log` frame, a simulated job's batch) → the stores:
`metric` records to metrics.services, `trace` and `probe` records to traces.services, the rest
(and the records those refuse, as warnings that say why) to logs.services, in one transaction.
A batch of log lines alone is one INSERT, atomic by itself: no transaction around it (a class's
jobs send some 200 such batches a second, and BEGIN and COMMIT were two of its three round trips).

A batch is data, never a crash (docs/decisions.md, "Node output is data"): text is made
storable first (logs.text); if the database still refuses the batch (a measurement record whose
JSON PostgreSQL's jsonb will not take, say), it is stored again without its measurement
records, each replaced by a warning naming the error. Only a database that cannot be reached
(OperationalError, InterfaceError) propagates: the sender keeps the batch and sends it again."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.db import InterfaceError, OperationalError, transaction

from metrics.services import metric_lines_ingest
from traces.services import LEVELS as TRACE_LEVELS, trace_lines_ingest

from .payloads import LogLineDict
from .services import log_lines_ingest, line_clean
from .text import storable_text

logger = logging.getLogger(__name__)

UNREACHABLE = (OperationalError, InterfaceError)  # the database is away: retry later, never skip
MEASUREMENTS = frozenset({"metric", *TRACE_LEVELS})


@dataclass
class FrameStored:
    lines: list[LogLineDict] = field(default_factory=list)  # new log rows, to publish
    chunks: list[Any] = field(default_factory=list)  # new metric chunks (metrics.services.MetricChunkDict)


def frame_ingest(*, job_id: int, nodes: set[int] | None, raw_lines: list[Any],
                 t_offset: float = 0.0) -> FrameStored:
    """Store one batch; return what to publish. `nodes`: the nodes the sender may write for
    (None: any); `t_offset`: added to trace rows' times (a simulation's virtual seconds)."""
    lines = [ln for ln in (line_clean(r) for r in raw_lines) if ln is not None]
    if not lines:
        return FrameStored()
    try:
        if not any(ln["level"] in MEASUREMENTS for ln in lines):
            return FrameStored(lines=log_lines_ingest(job_id=job_id, nodes=nodes, raw_lines=lines))
        with transaction.atomic():
            return _ingest(job_id, nodes, lines, t_offset)
    except UNREACHABLE:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever it is, the batch must not block the journal
        logger.warning("job %s: a batch of %d records was refused (%s: %s); storing it without its "
                       "measurement records", job_id, len(lines), type(exc).__name__, exc)
        why = storable_text(f"{type(exc).__name__}: {exc}", limit=300)
    kept = [ln if ln["level"] not in MEASUREMENTS else
            {**ln, "level": "warning", "text": f"{ln['level']} record not stored ({why}): {ln['text'][:200]}"}
            for ln in lines]
    with transaction.atomic():
        return FrameStored(lines=log_lines_ingest(job_id=job_id, nodes=nodes, raw_lines=kept))


def _ingest(job_id: int, nodes: set[int] | None, lines: list[dict[str, Any]], t_offset: float) -> FrameStored:
    out = FrameStored()
    levels = {ln["level"] for ln in lines}
    if "metric" in levels:
        metrics = metric_lines_ingest(job_id=job_id, nodes=nodes, raw_lines=lines)
        out.chunks = metrics["chunks"]
        lines = lines + metrics["rejected"]  # kept as warnings that say why
    if levels & TRACE_LEVELS:
        traces = trace_lines_ingest(job_id=job_id, nodes=nodes, raw_lines=lines, t_offset=t_offset)
        lines = lines + traces["rejected"]
    out.lines = log_lines_ingest(job_id=job_id, nodes=nodes, raw_lines=lines)
    return out
