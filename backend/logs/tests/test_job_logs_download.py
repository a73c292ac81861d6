"""GET /api/jobs/<id>/logs/download/: the whole log of a job, in (t, node, seq) order, streamed."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
import yaml
from asgiref.sync import async_to_sync
from rest_framework.test import APIClient

from courses.tests.factories import course_with
from jobs.tests.factories import job_make
from logs import download
from logs.models import LogLine
from logs.services import log_lines_ingest

pytestmark = pytest.mark.django_db

START = datetime(2026, 11, 26, 10, 0, tzinfo=timezone.utc)
T0 = START.timestamp()


async def _pieces(stream) -> list[bytes]:
    """The body as an ASGI server reads it: an async iterator, piece by piece."""
    return [piece async for piece in stream]


def body_pieces(response) -> list[bytes]:
    assert response.status_code == 200, response.content
    return async_to_sync(_pieces)(response.streaming_content)


def body_text(response) -> str:
    return b"".join(body_pieces(response)).decode("utf-8")


def jsonl(response) -> list[dict]:
    return [json.loads(x) for x in body_text(response).splitlines()]


@pytest.fixture
def job(student):
    """Three nodes whose lines were stored out of time order (as two daemons' batches arrive);
    nodes 1 and 3 stamp a line at the same instant, and node 2 two lines at one instant."""
    job = job_make(student, nodes=3, started_at=START)
    for node, seq, dt, level, text in [
        (2, 1, 0.5, "print", "node 2 joins"),
        (1, 1, 0.25, "print", "node 1 joins"),
        (3, 1, 1.0, "info", "node 3 JOINS late"),
        (1, 2, 1.0, "warning", "node 1 timeout to 3"),
        (2, 3, 2.0, "print", "node 2 second at 2"),
        (2, 2, 2.0, "error", "node 2 first at 2"),
        (1, 3, 3.125, "print", "node 1 done"),
    ]:
        LogLine.objects.create(job=job, node=node, seq=seq, t=T0 + dt, level=level, text=text)
    return job


def url(job) -> str:
    return f"/api/jobs/{job.id}/logs/download/"


def test_jsonl_holds_every_line_by_time_then_node_then_seq_with_t_from_the_start(student_client, job) -> None:
    response = student_client.get(url(job), {"format": "jsonl"})
    assert response["Content-Type"] == "application/x-ndjson"
    assert response["Content-Disposition"] == f'attachment; filename="job-{job.id}-logs.jsonl"'
    lines = jsonl(response)
    assert [(ln["t"], ln["node"], ln["seq"]) for ln in lines] == [
        (0.25, 1, 1), (0.5, 2, 1), (1.0, 1, 2), (1.0, 3, 1), (2.0, 2, 2), (2.0, 2, 3), (3.125, 1, 3)]
    assert lines[3] == {"t": 1.0, "node": 3, "seq": 1, "level": "info", "text": "node 3 JOINS late"}


def test_text_has_one_readable_line_per_record_in_the_same_order(student_client, job) -> None:
    response = student_client.get(url(job), {"format": "text"})
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="job-{job.id}-logs.txt"'
    assert body_text(response).splitlines() == [
        "t=0.250 node 1 [print] node 1 joins",
        "t=0.500 node 2 [print] node 2 joins",
        "t=1.000 node 1 [warning] node 1 timeout to 3",
        "t=1.000 node 3 [info] node 3 JOINS late",
        "t=2.000 node 2 [error] node 2 first at 2",
        "t=2.000 node 2 [print] node 2 second at 2",
        "t=3.125 node 1 [print] node 1 done",
    ]


def test_a_simulated_jobs_t_is_its_virtual_time(student, student_client) -> None:
    # The simulator stamps round(start + virtual t, 3); its start has microseconds.
    started = datetime(2026, 11, 26, 10, 0, 0, 123456, tzinfo=timezone.utc)
    job = job_make(student, nodes=1, started_at=started, mode="sim")
    for seq, virtual in enumerate((0.25, 1.0, 7.125, 59.999), start=1):
        LogLine.objects.create(job=job, node=1, seq=seq, t=round(started.timestamp() + virtual, 3), level="print",
                               text=f"at {virtual}")
    assert [ln["t"] for ln in jsonl(student_client.get(url(job)))] == [0.25, 1.0, 7.125, 59.999]
    assert [ln.split()[0] for ln in body_text(student_client.get(url(job), {"format": "text"})).splitlines()] == [
        "t=0.250", "t=1.000", "t=7.125", "t=59.999"]


def test_without_a_format_the_file_is_jsonl(student_client, job) -> None:
    response = student_client.get(url(job))
    assert response["Content-Disposition"].endswith('.jsonl"')
    assert len(jsonl(response)) == 7


def test_node_level_and_a_case_insensitive_search_narrow_the_file(student_client, job) -> None:
    texts = lambda **q: [ln["text"] for ln in jsonl(student_client.get(url(job), q))]  # noqa: E731
    assert texts(node=2) == ["node 2 joins", "node 2 first at 2", "node 2 second at 2"]
    assert texts(level="warning") == ["node 1 timeout to 3"]
    assert texts(q="joins") == ["node 1 joins", "node 2 joins", "node 3 JOINS late"]
    assert texts(q="JOINS", node=3) == ["node 3 JOINS late"]
    assert texts(q="100%_") == []  # LIKE's wildcards are plain characters here
    assert texts(q="") == texts()


def test_a_bad_format_or_filter_is_a_400_that_names_what_is_accepted(student_client, job) -> None:
    response = student_client.get(url(job), {"format": "xml"})
    assert response.status_code == 400
    assert response.json() == {"format": ['"xml" is not a log format: use one of jsonl, text.']}
    assert student_client.get(url(job), {"level": "loud"}).status_code == 400
    assert student_client.get(url(job), {"node": 0}).status_code == 400


def test_only_who_sees_the_job_downloads_its_log(job, student, teacher, teacher_client, other_client,
                                                 anon_client) -> None:
    assert other_client.get(url(job), {"format": "text"}).status_code == 404
    assert anon_client.get(url(job)).status_code == 401
    assert APIClient().get("/api/jobs/999999/logs/download/").status_code == 401
    course_with(instructors=(teacher,), students=(student,))
    assert len(jsonl(teacher_client.get(url(job)))) == 7
    assert other_client.get("/api/jobs/999999/logs/download/").status_code == 404


def test_nul_control_characters_and_newlines_come_out_escaped_one_record_per_line(student, student_client) -> None:
    job = job_make(student, nodes=1, started_at=START)
    raw = "a\x00b \x1b[31mred\x1b[0m\ttab é 漢 \u2028 two\nlines\r\\ \ud800"
    log_lines_ingest(job_id=job.id, nodes=None, raw_lines=[{"node": 1, "seq": 1, "t": T0 + 1, "text": raw}])
    stored = "a\\x00b \x1b[31mred\x1b[0m\ttab é 漢 \u2028 two\nlines\r\\ \\ud800"
    assert LogLine.objects.get(job=job).text == stored  # logs.text: NUL and a lone surrogate made visible

    data = b"".join(body_pieces(student_client.get(url(job), {"format": "jsonl"})))
    assert data.count(b"\n") == 1 and b"\x00" not in data and b"\x1b" not in data  # JSON escapes them
    assert json.loads(data)["text"] == stored
    text = body_text(student_client.get(url(job), {"format": "text"}))
    assert text == "t=1.000 node 1 [info] " + stored.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r") + "\n"


def test_a_large_job_is_streamed_in_pieces_in_time_order(student, student_client, monkeypatch) -> None:
    monkeypatch.setattr(download, "ROWS_PER_READ", 500)
    job = job_make(student, nodes=4, started_at=START)
    count = 2345
    # Node k stamps its i-th line at i/10 s + k ms: stored node by node, read back interleaved.
    LogLine.objects.bulk_create([
        LogLine(job=job, node=k, seq=i + 1, t=T0 + i / 10 + k / 1000, level="print", text=f"n{k} #{i}")
        for k in range(1, 5) for i in range(count // 4 + (k <= count % 4))])
    pieces = body_pieces(student_client.get(url(job), {"format": "jsonl"}))
    assert len(pieces) == 5  # 500 lines a piece
    lines = [json.loads(x) for x in b"".join(pieces).decode().splitlines()]
    assert len(lines) == count
    keys = [(ln["t"], ln["node"], ln["seq"]) for ln in lines]
    assert keys == sorted(keys)
    assert [ln["node"] for ln in lines[:8]] == [1, 2, 3, 4, 1, 2, 3, 4]


def test_the_schema_documents_both_formats_and_the_errors() -> None:
    schema = yaml.safe_load(APIClient().get("/api/schema/").content)
    op = schema["paths"]["/api/jobs/{job_id}/logs/download/"]["get"]
    assert set(op["responses"]["200"]["content"]) == {"application/x-ndjson", "text/plain"}
    assert {"400", "401", "404"} <= set(op["responses"])
    assert "jsonl, text" in op["responses"]["400"]["description"]
    assert {p["name"] for p in op["parameters"]} >= {"format", "node", "level", "q"}
