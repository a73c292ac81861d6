"""`trace` and `probe` lines of a daemon's `log` batch → TraceChunk / ProbeChunk rows and the
job's TraceSummary, in one transaction (docs/trace.md, "Where a trace goes")."""
from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, TypedDict

from django.db import transaction

from lib.trace import Row, Summary, row_clean

from .models import ProbeChunk, TraceChunk, TraceSummary

LEVELS = frozenset({"trace", "probe"})
MAX_PROBE_NAME = 100


class IngestResult(TypedDict):
    chunks: int  # TraceChunk rows stored
    rows: int  # trace rows stored
    probes: int  # probe records stored
    # Lines (or rows) that could not be taken, as log lines (level warning) that say why.
    rejected: list[dict[str, Any]]


def _warning(line: dict[str, Any], text: str) -> dict[str, Any]:
    return {"node": line["node"], "seq": line["seq"], "t": line["t"], "level": "warning", "text": text}


def trace_parse(text: str, t_offset: float = 0.0) -> tuple[list[Row] | None, int, str]:
    """A trace line's JSON text → (its good rows, how many were bad, why the first was) or
    (None, 0, why) when the line itself is not a batch of rows."""
    try:
        raw = json.loads(text)
    except ValueError:
        return None, 0, "not JSON"
    if not isinstance(raw, dict) or not isinstance(raw.get("rows"), list):
        return None, 0, 'expected {"rows": [...]}'
    rows: list[Row] = []
    bad, why = 0, ""
    for r in raw["rows"]:
        row, reason = row_clean(r)
        if row is None:
            bad, why = bad + 1, why or reason
            continue
        if t_offset:
            row[0] += t_offset
        rows.append(row)
    return rows, bad, why


def probe_parse(text: str, t: float) -> tuple[dict[str, Any] | None, str]:
    try:
        raw = json.loads(text)
    except ValueError:
        return None, "not JSON"
    if not isinstance(raw, dict):
        return None, "not a JSON object"
    name, fields = raw.get("name"), raw.get("fields")
    if not isinstance(name, str) or not name or len(name) > MAX_PROBE_NAME:
        return None, f"name must be a string of 1 to {MAX_PROBE_NAME} characters"
    if fields is not None and not isinstance(fields, dict):
        return None, "fields must be an object"
    return {"t": t, "name": name, "value": raw.get("value"), "fields": fields or None}, ""


def trace_lines_ingest(*, job_id: int, nodes: set[int] | None, raw_lines: list[dict[str, Any]],
                       t_offset: float = 0.0) -> IngestResult:
    """Take the `trace` and `probe` lines of a batch (others are ignored: logs and metrics
    store them). `nodes` restricts which nodes this daemon may report for (None: any);
    `t_offset` is added to every row's `t` (a simulated job's start: its rows carry virtual
    seconds). A line is taken once: a batch sent again after a reconnection carries seqs at
    or below the node's high-water mark and is dropped."""
    taken: list[tuple[int, int, str, Any]] = []  # (node, seq, level, rows | probe record)
    rejected: list[dict[str, Any]] = []
    for line in raw_lines:
        if not isinstance(line, dict) or line.get("level") not in LEVELS:
            continue
        try:
            node, seq, t = int(line["node"]), int(line["seq"]), float(line["t"])
        except (KeyError, TypeError, ValueError):
            continue
        if node < 1 or seq < 1 or (nodes is not None and node not in nodes):
            continue
        line = {**line, "node": node, "seq": seq, "t": t}
        text = str(line.get("text", ""))
        if line["level"] == "trace":
            rows, bad, why = trace_parse(text, t_offset)
            if rows is None:
                rejected.append(_warning(line, f"trace record dropped ({why}): {text[:200]}"))
                continue
            if bad:
                rejected.append(_warning(line, f"trace: {bad} of {bad + len(rows)} rows dropped ({why})"))
            taken.append((node, seq, "trace", rows))
        else:
            record, why = probe_parse(text, t)
            if record is None:
                rejected.append(_warning(line, f"probe record dropped ({why}): {text[:200]}"))
                continue
            taken.append((node, seq, "probe", record))
    if not taken:
        return IngestResult(chunks=0, rows=0, probes=0, rejected=rejected)

    with transaction.atomic():
        # Another daemon's batch may create it at the same moment: the one-to-one key decides.
        TraceSummary.objects.bulk_create([TraceSummary(job_id=job_id)], ignore_conflicts=True)
        summary_row = TraceSummary.objects.select_for_update().get(job_id=job_id)
        marks: dict[str, int] = summary_row.marks
        rows: dict[int, list[Row]] = defaultdict(list)
        probes: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for node, seq, level, payload in taken:
            if seq <= marks.get(str(node), 0):
                continue  # sent again
            marks[str(node)] = seq
            if level == "trace":
                rows[node] += payload
            else:
                probes[node].append(payload)
        summary = Summary.from_state(summary_row.state)
        for node, node_rows in rows.items():
            summary.add(node, node_rows)
        TraceChunk.objects.bulk_create([TraceChunk(job_id=job_id, node=node, size=len(r), rows=r)
                                        for node, r in rows.items() if r])
        ProbeChunk.objects.bulk_create([ProbeChunk(job_id=job_id, node=node, size=len(p), records=p)
                                        for node, p in probes.items()])
        summary_row.state = summary.state()
        summary_row.save(update_fields=["state", "marks"])
    return IngestResult(chunks=sum(1 for r in rows.values() if r), rows=sum(len(r) for r in rows.values()),
                        probes=sum(len(p) for p in probes.values()), rejected=rejected)
