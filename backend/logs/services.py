from typing import Any

from django.db.models import Q

from .models import LogLine
from .payloads import LogLineDict

LEVELS = {c.value for c in LogLine.Level}
MAX_TEXT = 8192  # a runaway print should not bloat the table


def _line_from_frame(job_id: int, raw: dict[str, Any]) -> LogLine | None:
    try:
        node, seq, t = int(raw["node"]), int(raw["seq"]), float(raw["t"])
    except (KeyError, TypeError, ValueError):
        return None
    if node < 1 or seq < 1:
        return None
    level = str(raw.get("level", "info"))
    return LogLine(job_id=job_id, node=node, seq=seq, t=t,
                   level=level if level in LEVELS else LogLine.Level.INFO,
                   text=str(raw.get("text", ""))[:MAX_TEXT])


def log_lines_ingest(*, job_id: int, nodes: set[int] | None,
                     raw_lines: list[dict[str, Any]]) -> list[LogLineDict]:
    """Store a daemon's `log` batch; return the stored rows (with ids) to publish.

    `nodes` restricts which nodes of the job this daemon may log for (None: any).
    Re-sent lines hit the (job, node, seq) constraint and are ignored."""
    lines = [ln for ln in (_line_from_frame(job_id, r) for r in raw_lines if isinstance(r, dict))
             if ln is not None and (nodes is None or ln.node in nodes)]
    if not lines:
        return []
    LogLine.objects.bulk_create(lines, ignore_conflicts=True)
    # ignore_conflicts leaves pks unset: read the batch back to get ids.
    by_node: dict[int, list[int]] = {}
    for ln in lines:
        by_node.setdefault(ln.node, []).append(ln.seq)
    match = Q()
    for node, seqs in by_node.items():
        match |= Q(node=node, seq__in=seqs)
    rows = LogLine.objects.filter(match, job_id=job_id).order_by("id")
    return [LogLineDict(id=r.id, node=r.node, seq=r.seq, t=r.t, level=r.level, text=r.text)
            for r in rows]
