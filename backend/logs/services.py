from typing import Any


from .models import LogLine
from .payloads import LogLineDict

LEVELS = {c.value for c in LogLine.Level}
# Records that are not log rows: metrics.services and traces.services store them.
NOT_LOGS = frozenset({LogLine.Level.METRIC, "trace", "probe"})
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
    Re-sent lines hit the (job, node, seq) constraint and are ignored. `metric`, `trace` and
    `probe` lines are not log rows: metrics.services and traces.services store them."""
    lines = [ln for ln in (_line_from_frame(job_id, r) for r in raw_lines
                           if isinstance(r, dict) and r.get("level") not in NOT_LOGS)
             if ln is not None and (nodes is None or ln.node in nodes)]
    # A batch naming one (node, seq) twice would make the upsert below fail: keep the first.
    lines = list({(ln.node, ln.seq): ln for ln in reversed(lines)}.values())[::-1]
    if not lines:
        return []
    # One statement that also returns ids: a re-sent line (same job, node, seq) hits the unique
    # constraint and is "updated" to itself instead of failing or being stored twice.
    rows = LogLine.objects.bulk_create(lines, update_conflicts=True,
                                       unique_fields=["job", "node", "seq"], update_fields=["seq"])
    return [LogLineDict(id=r.id, node=r.node, seq=r.seq, t=r.t, level=r.level, text=r.text)
            for r in rows]
