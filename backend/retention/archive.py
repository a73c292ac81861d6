"""A job's archive: a .zip its owner (and the course's staff) download before retention prunes
it, written as it is sent (zipfile on a write-only sink, rows read in batches by id), never
built in memory or on disk.

Members: README.txt (what is where; the pruning note when something is gone already), job.json
(the job as the API shows it, its descriptor, instances and retention), code/<filename>,
logs.txt and logs.jsonl, metrics.jsonl (one sample a line) and metrics_summary.json (the
series), trace.jsonl (one row a line, the API's columns with `t` in epoch seconds),
probes.jsonl, trace_summary.json, churn_events.jsonl (churn jobs)."""
from __future__ import annotations

import io
import json
import zipfile
from collections.abc import AsyncIterator, Iterator
from typing import Any

from asgiref.sync import sync_to_async
from django.core.serializers.json import DjangoJSONEncoder

from jobs.models import ChurnEvent, Job
from jobs.serializers import job_to_dict
from logs.models import LogLine
from metrics.models import MetricChunk, MetricSeries
from metrics.packing import unpack
from metrics.selectors import series_to_dict
from traces.models import ProbeChunk, TraceChunk
from traces.selectors import API_COLUMNS, trace_summary

from .models import JobRetention

ROWS_PER_READ = 5000     # log lines per query
CHUNKS_PER_READ = 200    # metric, trace or probe chunks per query

README = """\
Archive of SplayLab job #{id} ({name}), made {made}.

job.json             the job (state, reason, times, descriptor, instances) and its retention
code/{filename}      the code it ran
logs.txt             the log, one line per record: t (epoch s)  node  level  text
logs.jsonl           the same, one JSON object per line: id, node, seq, t, level, text
metrics.jsonl        every metric sample: name, kind, node, t (epoch s), value, fields
metrics_summary.json the controller's aggregate of each metric (as GET /api/jobs/{id}/metrics/)
trace.jsonl          the message trace, one row per line: {columns} (t in epoch s)
probes.jsonl         the assignment harness's probe records: node, t, name, value, fields
trace_summary.json   the trace's summary (as in GET /api/jobs/{id}/trace/)
churn_events.jsonl   the churn job's joins, leaves and failures (churn jobs only)
{note}"""


class _Sink(io.RawIOBase):
    """Where zipfile writes: keeps the bytes until the stream takes them. Not seekable, so
    zipfile writes each member's sizes after its data (data descriptors)."""

    def __init__(self) -> None:
        super().__init__()
        self._parts: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self._parts.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        data = b"".join(self._parts)
        self._parts.clear()
        return data


def _json_line(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, cls=DjangoJSONEncoder) + "\n").encode("utf-8", "surrogatepass")


LOG_FIELDS = ("node", "seq", "t", "level", "text")


def _text_line(row: tuple) -> bytes:
    _id, node, _seq, t, level, text = row
    # One record per line whatever the text holds: newlines shown as \n, like the job page does.
    text = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return f"{t:.3f}\tnode {node}\t{level}\t{text}\n".encode("utf-8", "surrogatepass")


def _jsonl_line(row: tuple) -> bytes:
    return _json_line(dict(zip(("id", *LOG_FIELDS), row)))


def _by_id(qs, fields: tuple[str, ...], batch: int) -> Iterator[list[tuple]]:
    """`fields` of the rows of `qs` in id order, `batch` rows per query (keyset on the id,
    which comes first in each tuple: no OFFSET, no cursor held between pieces; tuples, not
    model instances, which cost more than the query)."""
    after = 0
    while True:
        rows = list(qs.filter(id__gt=after).order_by("id").values_list("id", *fields)[:batch])
        if not rows:
            return
        yield rows
        after = rows[-1][0]


def _job_json(job: Job) -> dict:
    retention = JobRetention.objects.filter(job_id=job.id).first()
    return {**job_to_dict(job, instances=True), "descriptor": job.descriptor,
            "retention": None if retention is None else {
                "keep": retention.keep, "pruned_at": retention.pruned_at, "pruned": retention.pruned,
                "note": retention.pruned_note}}


def archive_chunks(job: Job, *, made: str) -> Iterator[bytes]:
    """The archive's bytes, a piece after each member or batch of rows."""
    sink = _Sink()
    zf = zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED)
    retention = JobRetention.objects.filter(job_id=job.id).first()
    note = f"\nNOTE: {retention.pruned_note}\n" if retention is not None and retention.pruned_note else ""
    zf.writestr("README.txt", README.format(id=job.id, name=job.name or "unnamed", made=made,
                                            filename=job.filename, columns=", ".join(API_COLUMNS), note=note))
    zf.writestr("job.json", json.dumps(_job_json(job), indent=2, cls=DjangoJSONEncoder))
    zf.writestr(f"code/{job.filename}", job.code)
    yield sink.take()

    lines = LogLine.objects.filter(job_id=job.id)
    for member, render in (("logs.txt", _text_line), ("logs.jsonl", _jsonl_line)):
        with zf.open(member, "w", force_zip64=True) as out:
            for batch in _by_id(lines, LOG_FIELDS, ROWS_PER_READ):
                out.write(b"".join(render(row) for row in batch))
                yield sink.take()
        yield sink.take()

    with zf.open("metrics.jsonl", "w", force_zip64=True) as out:
        for batch in _by_id(MetricChunk.objects.filter(job_id=job.id),
                            ("name", "kind", "node", "t", "value", "fields"), CHUNKS_PER_READ):
            for _id, name, kind, node, t, value, fields in batch:
                values = unpack("d", value)
                out.write(b"".join(_json_line({"name": name, "kind": kind, "node": n, "t": ts, "value": v,
                                               **({"fields": f} if f is not None else {})})
                                   for n, ts, v, f in zip(unpack("i", node), unpack("d", t), values,
                                                          fields or [None] * len(values))))
            yield sink.take()
    zf.writestr("metrics_summary.json", json.dumps(
        [series_to_dict(s) for s in MetricSeries.objects.filter(job_id=job.id).order_by("name")], indent=2))
    yield sink.take()

    with zf.open("trace.jsonl", "w", force_zip64=True) as out:
        for batch in _by_id(TraceChunk.objects.filter(job_id=job.id), ("node", "rows"), CHUNKS_PER_READ):
            out.write(b"".join(_json_line([r[0], node, *r[1:]]) for _id, node, rows in batch for r in rows))
            yield sink.take()
    with zf.open("probes.jsonl", "w", force_zip64=True) as out:
        for batch in _by_id(ProbeChunk.objects.filter(job_id=job.id), ("node", "records"), CHUNKS_PER_READ):
            out.write(b"".join(_json_line({"node": node, **r}) for _id, node, records in batch for r in records))
            yield sink.take()
    zf.writestr("trace_summary.json", json.dumps(trace_summary(job=job), indent=2))
    if job.has_churn:
        with zf.open("churn_events.jsonl", "w") as out:
            keys = ("node", "plays", "event", "t", "planned", "graceful", "text")
            for batch in _by_id(ChurnEvent.objects.filter(job_id=job.id), keys, ROWS_PER_READ):
                out.write(b"".join(_json_line(dict(zip(keys, row[1:]))) for row in batch))
    zf.close()
    yield sink.take()


async def archive_stream(job: Job, *, made: str) -> AsyncIterator[bytes]:
    """archive_chunks for an ASGI StreamingHttpResponse: Django would read a plain iterator
    whole into memory before sending it, so each piece is made in the sync thread (the ORM's)
    and sent as soon as it is made."""
    chunks = archive_chunks(job, made=made)
    step = sync_to_async(lambda: next(chunks, None))
    while True:
        piece = await step()
        if piece is None:
            return
        if piece:
            yield piece
