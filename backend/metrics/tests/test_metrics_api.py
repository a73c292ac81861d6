"""GET /api/jobs/<id>/metrics/ and /api/jobs/<id>/metrics/chunks/"""
import json

from jobs.tests.factories import job_make
from metrics.services import metric_lines_ingest
from metrics.sketch import GAMMA, bucket_of


def _observe(node, seq, value, hops):
    return {"node": node, "seq": seq, "t": 50.0 + seq, "level": "metric",
            "text": json.dumps({"name": "lookup_latency", "value": value, "type": "observe", "fields": {"hops": hops}})}


def test_summary_has_histogram_node_counters_fields_and_a_label(student, student_client) -> None:
    job = job_make(student, nodes=2)
    metric_lines_ingest(job_id=job.id, nodes=None, raw_lines=[
        _observe(1, 1, 0.5, 2), _observe(2, 1, 0.5, 3), _observe(2, 2, 2.0, 3)])
    body = student_client.get(f"/api/jobs/{job.id}/metrics/").json()
    assert body["job"] == job.id
    assert body["label"] == f"job #{job.id} · code {job.code_version} · lan"
    [s] = body["series"]
    assert (s["name"], s["kind"], s["count"], s["sum"], s["min"], s["max"]) == ("lookup_latency", "observe", 3, 3.0, 0.5, 2.0)
    assert s["histogram"] == {"gamma": GAMMA, "positive": [[bucket_of(0.5), 2], [bucket_of(2.0), 1]],
                              "negative": [], "zero": 0}
    assert s["nodes"] == [{"node": 1, "count": 1, "sum": 0.5, "last": 0.5},
                          {"node": 2, "count": 2, "sum": 2.5, "last": 2.0}]
    assert s["fields"] == {"hops": [[2, 1], [3, 2]]}


def test_chunks_page_by_id_and_filter_by_name(student, student_client) -> None:
    job = job_make(student, nodes=2)
    first, second = [metric_lines_ingest(job_id=job.id, nodes=None, raw_lines=[batch])["chunks"][0]["id"]
                     for batch in (_observe(1, 1, 0.5, 2), _observe(2, 1, 0.7, 3))]
    body = student_client.get(f"/api/jobs/{job.id}/metrics/chunks/", {"limit": 1}).json()
    assert [c["id"] for c in body["chunks"]] == [first] and body["next_after"] == first
    assert body["chunks"][0] == {"id": first, "node": [1], "name": "lookup_latency", "kind": "observe",
                                 "t": [51.0], "value": [0.5], "fields": [{"hops": 2}]}
    body = student_client.get(f"/api/jobs/{job.id}/metrics/chunks/", {"after": first}).json()
    assert [c["id"] for c in body["chunks"]] == [second]
    body = student_client.get(f"/api/jobs/{job.id}/metrics/chunks/", {"name": "other"}).json()
    assert body == {"chunks": [], "next_after": 0}


def test_other_students_jobs_are_404(student, other_client) -> None:
    job = job_make(student)
    assert other_client.get(f"/api/jobs/{job.id}/metrics/").status_code == 404
    assert other_client.get(f"/api/jobs/{job.id}/metrics/chunks/").status_code == 404
