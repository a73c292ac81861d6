"""Writes of log lines: one multi-row statement per batch, resent lines skipped."""
from __future__ import annotations

import math
from typing import Any

from django.db import connection

from .models import LogLine
from .payloads import LogLineDict
from .text import MAX_TEXT, storable_text

LEVELS = {c.value for c in LogLine.Level}
# Records that are not log rows: metrics.services and traces.services store them.
NOT_LOGS = frozenset({LogLine.Level.METRIC, "trace", "probe"})
INT_MAX = 2**31 - 1  # node and seq are PostgreSQL integers

__all__ = ["LEVELS", "MAX_TEXT", "NOT_LOGS", "log_lines_ingest", "line_clean"]


def line_clean(raw: Any) -> dict[str, Any] | None:
    """A frame's line with a valid node, seq and t and storable text (logs.text), or None
    when it names no usable (node, seq, t)."""
    if not isinstance(raw, dict):
        return None
    try:
        node, seq, t = int(raw["node"]), int(raw["seq"]), float(raw["t"])
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    if not (1 <= node <= INT_MAX and 1 <= seq <= INT_MAX and math.isfinite(t)):
        return None
    level = raw.get("level", "info")
    return {"node": node, "seq": seq, "t": t, "level": level if isinstance(level, str) else "info",
            "text": storable_text(raw.get("text", ""), limit=None)}


_INSERT = """
INSERT INTO {table} (job_id, node, seq, t, level, text)
SELECT %s, * FROM unnest(%s::integer[], %s::integer[], %s::double precision[], %s::varchar[], %s::text[])
ON CONFLICT (job_id, node, seq) DO NOTHING
RETURNING id, node, seq, t, level, text
"""


def log_lines_ingest(*, job_id: int, nodes: set[int] | None,
                     raw_lines: list[dict[str, Any]]) -> list[LogLineDict]:
    """Store a batch of log lines; return the rows this call inserted (with ids), to publish.

    `nodes` restricts which nodes of the job the sender may log for (None: any). A line that
    names no valid (node, seq, t) is skipped; an unknown level is `info`; text is made
    storable (logs.text: NUL as \\x00, cut at MAX_TEXT characters). One INSERT for the whole
    batch: a line sent again (same job, node, seq: a frame resent after a reconnection) hits
    the unique constraint and is skipped, so it is neither stored nor published twice.
    `metric`, `trace` and `probe` records are not log rows: metrics.services and
    traces.services store them."""
    seen: set[tuple[int, int]] = set()
    rows: list[dict[str, Any]] = []
    for raw in raw_lines:
        if isinstance(raw, dict) and raw.get("level") in NOT_LOGS:
            continue
        line = line_clean(raw)
        if line is None or (nodes is not None and line["node"] not in nodes):
            continue
        key = (line["node"], line["seq"])
        if key in seen:  # a batch naming one (node, seq) twice keeps the first
            continue
        seen.add(key)
        rows.append(line)
    if not rows:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_INSERT.format(table=connection.ops.quote_name(LogLine._meta.db_table)), [
            job_id, [r["node"] for r in rows], [r["seq"] for r in rows], [r["t"] for r in rows],
            [r["level"] if r["level"] in LEVELS else LogLine.Level.INFO for r in rows],
            [r["text"] if len(r["text"]) <= MAX_TEXT else storable_text(r["text"]) for r in rows]])
        stored = cursor.fetchall()
    stored.sort()  # ids follow the batch's order
    return [LogLineDict(id=i, node=node, seq=seq, t=t, level=level, text=text)
            for i, node, seq, t, level, text in stored]
