"""GET /api/jobs/<id>/trace/"""
from __future__ import annotations

from datetime import datetime, timezone

from courses.tests.factories import course_with
from jobs.models import Job
from jobs.tests.factories import job_make
from traces.services import trace_lines_ingest

from .fixtures import ROWS, SUMMARY, T0, trace_line

COLUMNS = ["t", "node", "type", "peer", "name", "out", "in", "outcome", "op", "depth", "dur", "count"]


def _traced_job(owner) -> tuple[Job, list[int]]:
    """The fixture's job, started at T0, its rows in three batches; the chunk ids."""
    job = job_make(owner, nodes=3, state=Job.State.RUNNING, trace={"max_events": 20000},
                   started_at=datetime.fromtimestamp(T0, tz=timezone.utc))
    for batch in ([trace_line(1, 1, ROWS[1])], [trace_line(2, 1, ROWS[2])], [trace_line(3, 1, ROWS[3])]):
        trace_lines_ingest(job_id=job.id, nodes=None, raw_lines=batch)
    return job, list(job.trace_chunks.order_by("id").values_list("id", flat=True))


def test_rows_carry_their_node_and_seconds_since_the_start_with_the_whole_summary(student, student_client) -> None:
    job, chunks = _traced_job(student)
    body = student_client.get(f"/api/jobs/{job.id}/trace/").json()
    assert (body["job"], body["trace"], body["start"], body["columns"]) == (job.id, {"max_events": 20000}, T0, COLUMNS)
    assert body["rows"][:2] == [[0.1, 1, "op", 0, "lookup", 0, 0, "ok", "1:5:1", 0, 0.05, 1],
                                [0.101, 1, "call", 2, "find", 100, 40, "ok", "1:5:1", 1, 0.01, 1]]
    assert [r[1] for r in body["rows"]] == [1, 1, 1, 1, 2, 2, 3, 3, 3]
    assert body["rows"][3] == [0.2, 1, "sendto", "10.0.0.9:80", "", 7, 0, "ok", "", 0, 0, 1]
    assert body["next_after"] == chunks[-1]
    assert body["summary"] == SUMMARY


def test_pages_by_chunk_id_and_filters_by_node(student, student_client) -> None:
    job, chunks = _traced_job(student)
    url = f"/api/jobs/{job.id}/trace/"
    page = student_client.get(url, {"limit": 1}).json()
    assert ([r[1] for r in page["rows"]], page["next_after"]) == ([1, 1, 1, 1], chunks[0])
    assert page["summary"] == SUMMARY  # the whole job's, whatever the page
    page = student_client.get(url, {"after": chunks[0], "limit": 1}).json()
    assert ([r[1] for r in page["rows"]], page["next_after"]) == ([2, 2], chunks[1])
    page = student_client.get(url, {"after": chunks[2]}).json()
    assert (page["rows"], page["next_after"]) == ([], chunks[2])
    page = student_client.get(url, {"node": 3}).json()
    assert {r[1] for r in page["rows"]} == {3} and len(page["rows"]) == 3
    assert student_client.get(url, {"limit": 0}).status_code == 400


def test_a_job_without_a_trace_answers_empty(student, student_client) -> None:
    job = job_make(student)
    body = student_client.get(f"/api/jobs/{job.id}/trace/").json()
    assert (body["trace"], body["rows"], body["next_after"]) == (None, [], 0)
    assert body["summary"] == {"nodes": [], "ops": [], "capped": False, "ops_truncated": False, "totals": {
        "rows": 0, "messages_out": 0, "messages_in": 0, "bytes_out": 0, "bytes_in": 0}}


def test_same_permissions_as_the_jobs_logs(student, other_client, teacher, teacher_client, anon_client) -> None:
    course_with(instructors=(teacher,), students=(student,))
    job, _ = _traced_job(student)
    url = f"/api/jobs/{job.id}/trace/"
    assert other_client.get(url).status_code == 404
    assert other_client.get(f"/api/jobs/{job.id}/logs/").status_code == 404
    assert teacher_client.get(url).status_code == teacher_client.get(f"/api/jobs/{job.id}/logs/").status_code == 200
    assert anon_client.get(url).status_code == 401
