"""The log lines a report keeps of a submission's run (docs/grading.md, "The report"): the grader
keeps no run's records once it has graded, so what a student may read of a visible run's output
travels inside the report, capped so that a chatty run cannot bloat it."""
from __future__ import annotations

from typing import Any

MAX_LINES = 2000        # per run
MAX_TEXT = 1000         # characters of one line (the runner already cuts lines at 4096 bytes)
CUT_MARK = " [cut for the report]"


def _line(record: dict[str, Any]) -> tuple[str, str] | None:
    """(level, text) of a record worth reading in a log: the nodes' lines, and how a node ended
    when it ended badly (a crash's message is the one line a student needs)."""
    kind = record.get("kind")
    if kind == "log":
        return str(record.get("level") or "info"), str(record.get("text", ""))
    if kind == "exit" and record.get("code") not in (0, None):
        return "error", f"node ended: {record.get('text', '')}"
    return None


def run_logs(records: list[dict[str, Any]], *, max_lines: int = MAX_LINES) -> dict[str, Any]:
    """{"total": lines the run wrote, "errors": of them at level error, "lines": [[t, node,
    level, text], ...]}: every error line first (up to max_lines), then the earliest other lines
    up to max_lines, listed by (t, node) as the job log lists them."""
    lines = []
    for i, r in enumerate(records):
        found = _line(r)
        if found is not None:
            level, text = found
            lines.append((round(float(r.get("t") or 0.0), 3), int(r.get("node") or 0), i, level, text))
    errors = [x for x in lines if x[3] == "error"]
    kept = errors[:max_lines]
    kept += [x for x in lines if x[3] != "error"][:max_lines - len(kept)]
    kept.sort(key=lambda x: (x[0], x[1], x[2]))
    return {"total": len(lines), "errors": len(errors),
            "lines": [[t, node, level, text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + CUT_MARK]
                      for t, node, _, level, text in kept]}
