"""Metric records from a daemon's `log` batch → MetricChunk rows + the MetricSeries aggregates."""
from __future__ import annotations

import json
import math
from collections import defaultdict
from typing import Any, TypedDict

from django.db import transaction

from .models import Kind, MetricChunk, MetricSeries
from .packing import pack, unpack
from .sketch import histogram_add

MAX_SERIES_PER_JOB = 50  # distinct metric names: each is an aggregate row and a plot
MAX_NAME = 100
MAX_FIELD_HISTOGRAMS = 8  # integer fields (hops...) histogrammed per metric
MAX_FIELD_VALUES = 200  # distinct values per field histogram
FIELD_RANGE = range(0, 10_000)
KINDS = frozenset(Kind.values)


class MetricChunkDict(TypedDict):
    id: int
    node: list[int]
    name: str
    kind: str
    t: list[float]
    value: list[float]
    fields: list[dict[str, Any] | None] | None


class Record(TypedDict):
    node: int
    seq: int
    t: float
    name: str
    kind: str
    value: float
    fields: dict[str, Any] | None


class IngestResult(TypedDict):
    chunks: list[MetricChunkDict]
    # Records that could not be taken, as log lines (level warning) that say why.
    rejected: list[dict[str, Any]]


def record_parse(text: str) -> tuple[dict[str, Any] | None, str]:
    """A metric line's JSON text → (name, kind, value, fields) or (None, why)."""
    try:
        raw = json.loads(text)
    except ValueError:
        return None, "not JSON"
    if not isinstance(raw, dict):
        return None, "not a JSON object"
    name, value, kind, fields = raw.get("name"), raw.get("value"), raw.get("type", "observe"), raw.get("fields")
    if not isinstance(name, str) or not name or len(name) > MAX_NAME:
        return None, f"name must be a string of 1 to {MAX_NAME} characters"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None, "value must be a finite number"
    if kind not in KINDS:
        return None, f"type must be one of {', '.join(Kind.values)}"
    if fields is not None and not (isinstance(fields, dict) and all(
            isinstance(v, (str, int, float, bool)) for v in fields.values())):
        return None, "fields must be an object of strings, numbers and booleans"
    return {"name": name, "kind": kind, "value": float(value), "fields": fields or None}, ""


def _reject(line: dict[str, Any], why: str) -> dict[str, Any]:
    return {**line, "level": "warning", "text": f"metric record dropped ({why}): {str(line.get('text'))[:200]}"}


def _add_fields(series: MetricSeries, fields: dict[str, Any]) -> None:
    for key, v in fields.items():
        if isinstance(v, bool) or not isinstance(v, int) or v not in FIELD_RANGE:
            continue
        hist = series.fields.get(key)
        if hist is None:
            if len(series.fields) >= MAX_FIELD_HISTOGRAMS:
                continue
            hist = series.fields[key] = {}
        k = str(v)
        if k in hist or len(hist) < MAX_FIELD_VALUES:
            hist[k] = hist.get(k, 0) + 1


def _aggregate(series: MetricSeries, rec: Record) -> None:
    v = rec["value"]
    series.count += 1
    series.total += v
    series.min = v if series.min is None else min(series.min, v)
    series.max = v if series.max is None else max(series.max, v)
    histogram_add(series.histogram, v)
    per_node = series.nodes.setdefault(str(rec["node"]), [0, 0.0, 0.0, 0])
    per_node[0] += 1
    per_node[1] += v
    per_node[2] = v
    per_node[3] = rec["seq"]
    if rec["fields"]:
        _add_fields(series, rec["fields"])


def metric_lines_ingest(*, job_id: int, nodes: set[int] | None,
                        raw_lines: list[dict[str, Any]]) -> IngestResult:
    """Take the `metric` lines of a daemon batch (others are ignored: logs.services stores them).

    `nodes` restricts which nodes this daemon may report for (None: any). A record is taken
    once: a batch sent again after a reconnection carries seqs at or below the node's
    high-water mark and is dropped."""
    records: list[Record] = []
    rejected: list[dict[str, Any]] = []
    for line in raw_lines:
        if not isinstance(line, dict) or line.get("level") != "metric":
            continue
        try:
            node, seq, t = int(line["node"]), int(line["seq"]), float(line["t"])
        except (KeyError, TypeError, ValueError):
            continue
        if node < 1 or seq < 1 or (nodes is not None and node not in nodes):
            continue
        parsed, why = record_parse(str(line.get("text", "")))
        if parsed is None:
            rejected.append(_reject(line, why))
            continue
        records.append(Record(node=node, seq=seq, t=t, **parsed))
    if not records:
        return IngestResult(chunks=[], rejected=rejected)

    with transaction.atomic():
        existing = dict(MetricSeries.objects.filter(job_id=job_id).values_list("name", "kind"))
        first_kind: dict[str, str] = {}
        for rec in records:
            first_kind.setdefault(rec["name"], rec["kind"])
        new = [n for n in first_kind if n not in existing][:max(0, MAX_SERIES_PER_JOB - len(existing))]
        # Another daemon may create the same series at the same moment: the constraint decides.
        MetricSeries.objects.bulk_create([MetricSeries(job_id=job_id, name=n, kind=first_kind[n]) for n in new],
                                         ignore_conflicts=True)
        # Locked in name order: two daemons' batches of one job wait for each other, never deadlock.
        series = {s.name: s for s in MetricSeries.objects.select_for_update()
                  .filter(job_id=job_id, name__in=list(first_kind)).order_by("name")}

        samples: dict[str, list[Record]] = defaultdict(list)
        for rec in records:
            s = series.get(rec["name"])
            if s is None:
                rejected.append({"node": rec["node"], "seq": rec["seq"], "t": rec["t"], "level": "warning",
                                 "text": f"metric record dropped (this job already has {MAX_SERIES_PER_JOB} "
                                         f"metrics): {rec['name']}"})
                continue
            if s.kind != rec["kind"]:
                rejected.append({"node": rec["node"], "seq": rec["seq"], "t": rec["t"], "level": "warning",
                                 "text": f"metric record dropped ({rec['name']} is a {s.kind} metric, "
                                         f"this record is a {rec['kind']})"})
                continue
            mark = s.nodes.get(str(rec["node"]))
            if mark is not None and rec["seq"] <= mark[3]:
                continue  # sent again
            _aggregate(s, rec)
            samples[rec["name"]].append(rec)
        stored = MetricChunk.objects.bulk_create([_chunk(job_id, series[name].kind, recs)
                                                  for name, recs in samples.items()])
        MetricSeries.objects.bulk_update(list(series.values()),
                                         ["count", "total", "min", "max", "histogram", "nodes", "fields"])
    return IngestResult(chunks=[chunk_to_dict(c) for c in stored], rejected=rejected)


def _chunk(job_id: int, kind: str, recs: list[Record]) -> MetricChunk:
    fields = [r["fields"] for r in recs]
    return MetricChunk(job_id=job_id, name=recs[0]["name"], kind=kind, size=len(recs),
                       node=pack("i", (r["node"] for r in recs)), t=pack("d", (r["t"] for r in recs)),
                       value=pack("d", (r["value"] for r in recs)),
                       fields=fields if any(f is not None for f in fields) else None)


def chunk_to_dict(c: MetricChunk) -> MetricChunkDict:
    return MetricChunkDict(id=c.id, node=unpack("i", c.node), name=c.name, kind=c.kind, t=unpack("d", c.t),
                           value=unpack("d", c.value), fields=c.fields)
