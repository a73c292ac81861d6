"""A job's whole log as one file (GET /api/jobs/<id>/logs/download/), in time order, streamed.

Order: (t, node, seq), the order the job page lists lines in (live lines from two daemons
arrive out of order; their stamps do not). `t` in the file is seconds since the job's start:
in a simulated run, its virtual time (jobs.simulation stamps start + virtual t).

Formats (the job archive's two, with relative time: backend/retention/archive.py):
- `jsonl`: one object per line {"t", "node", "seq", "level", "text"}; JSON escapes control
  characters, so any text comes out on one line and intact.
- `text`: "t=12.345 node 3 [level] text"; backslash, newline and carriage return in the text
  are written \\\\, \\n and \\r (one record per line, as in the archive's logs.txt).
A NUL never reaches the file: storage keeps it as the four characters \\x00 (logs.text).

Rows are read through one server-side cursor (QuerySet.iterator), ROWS_PER_READ at a time, and
sent as each batch is written: the file is never built in memory."""
from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator

from asgiref.sync import sync_to_async

from jobs.models import Job

from .selectors import log_rows_in_time_order

ROWS_PER_READ = 2000
FORMATS = {"jsonl": ("jsonl", "application/x-ndjson"), "text": ("txt", "text/plain; charset=utf-8")}

Row = tuple[float, int, int, str, str]  # t (epoch s), node, seq, level, text


def job_origin(job: Job) -> float:
    """Epoch seconds of the job's t = 0: its start (a job never started has no lines; its
    creation keeps the answer defined)."""
    return (job.started_at or job.created_at).timestamp()


def time_digits(job: Job) -> int:
    """Decimals of `t` in the file: a daemon stamps microseconds; the simulator stamps its start
    plus the virtual time rounded to the millisecond (jobs.simulation), so more digits than 3
    would only show that rounding (1.0 virtual s as 0.999544)."""
    return 3 if job.mode == Job.Mode.SIM else 6


_string = json.JSONEncoder(ensure_ascii=False).encode  # a str → its JSON literal (C speed)


def jsonl_line(row: Row, origin: float, digits: int = 6) -> str:
    # Written by hand rather than json.dumps of a dict: a third of the time for a large log.
    t, node, seq, level, text = row
    since = round(t - origin, digits)  # rounded: no 12.34499999 from the subtraction
    return (f'{{"t": {since!r}, "node": {node}, "seq": {seq}, "level": {_string(level)}, '
            f'"text": {_string(text)}}}\n')


def text_line(row: Row, origin: float, digits: int = 6) -> str:
    t, node, seq, level, text = row
    text = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return f"t={round(t - origin, digits):.3f} node {node} [{level}] {text}\n"


RENDER: dict[str, Callable[[Row, float, int], str]] = {"jsonl": jsonl_line, "text": text_line}


def log_file_chunks(job: Job, *, fmt: str, node: int | None = None, level: str | None = None,
                    q: str = "") -> Iterator[bytes]:
    """The file's bytes, one piece per ROWS_PER_READ lines."""
    render, origin, digits = RENDER[fmt], job_origin(job), time_digits(job)
    batch: list[str] = []
    for row in log_rows_in_time_order(job_id=job.id, node=node, level=level, q=q).iterator(chunk_size=ROWS_PER_READ):
        batch.append(render(row, origin, digits))
        if len(batch) >= ROWS_PER_READ:
            yield "".join(batch).encode("utf-8", "backslashreplace")
            batch = []
    if batch:
        yield "".join(batch).encode("utf-8", "backslashreplace")


async def log_file_stream(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    """`chunks` for an ASGI StreamingHttpResponse: each piece is made in the sync thread (the
    ORM's, which holds the cursor) and sent as soon as it is made. Closing the stream (the
    client went away) closes the generator, hence the server-side cursor."""
    step = sync_to_async(lambda: next(chunks, None))
    try:
        while (piece := await step()) is not None:
            yield piece
    finally:
        await sync_to_async(chunks.close)()
