"""metrics.services.metric_lines_ingest: chunks, aggregates, duplicates, bad records."""
import json

from jobs.tests.factories import job_make
from metrics.models import MetricChunk, MetricSeries
from metrics.services import MAX_SERIES_PER_JOB, chunk_to_dict, metric_lines_ingest
from metrics.sketch import histogram_quantile


def metric(node: int, seq: int, name: str, value, kind: str = "observe", fields=None, t: float = 100.0) -> dict:
    rec = {"name": name, "value": value, "type": kind}
    if fields is not None:
        rec["fields"] = fields
    return {"node": node, "seq": seq, "t": t + seq, "level": "metric", "text": json.dumps(rec)}


def test_one_chunk_per_node_and_metric_and_an_aggregate_per_metric(student) -> None:
    job = job_make(student, nodes=2)
    out = metric_lines_ingest(job_id=job.id, nodes={1, 2}, raw_lines=[
        metric(1, 1, "lookup_latency", 0.2, fields={"hops": 2}),
        {"node": 1, "seq": 2, "t": 1.0, "level": "print", "text": "not a metric"},
        metric(2, 1, "lookup_latency", 0.4, fields={"hops": 3, "key": "ab"}),
        metric(1, 3, "lookup_latency", 0.1),
        metric(1, 4, "sent", 5, kind="count"),
        metric(3, 1, "lookup_latency", 9.0),  # node 3 is not this daemon's
    ])
    chunks = list(MetricChunk.objects.order_by("id"))
    assert [(c.name, c.kind, c.size) for c in chunks] == [("lookup_latency", "observe", 3), ("sent", "count", 1)]
    assert [c["id"] for c in out["chunks"]] == [c.id for c in chunks] and out["rejected"] == []
    assert out["chunks"][0] == {"id": chunks[0].id, "name": "lookup_latency", "kind": "observe",
                                "node": [1, 2, 1], "t": [101.0, 101.0, 103.0], "value": [0.2, 0.4, 0.1],
                                "fields": [{"hops": 2}, {"hops": 3, "key": "ab"}, None]}
    assert out["chunks"][1]["fields"] is None and out["chunks"][1]["value"] == [5.0]
    assert chunk_to_dict(MetricChunk.objects.get(id=chunks[0].id)) == out["chunks"][0]  # read back from bytes
    lat = MetricSeries.objects.get(job=job, name="lookup_latency")
    assert (lat.count, round(lat.total, 9), lat.min, lat.max) == (3, 0.7, 0.1, 0.4)
    assert lat.nodes == {"1": [2, 0.30000000000000004, 0.1, 3], "2": [1, 0.4, 0.4, 1]}
    assert lat.fields == {"hops": {"2": 1, "3": 1}}
    assert abs(histogram_quantile(lat.histogram, 0.5) - 0.2) < 0.002
    sent = MetricSeries.objects.get(job=job, name="sent")
    assert (sent.kind, sent.count, sent.total) == ("count", 1, 5.0)


def test_aggregates_grow_batch_by_batch_and_a_resent_batch_is_dropped(student) -> None:
    job = job_make(student)
    first = [metric(1, s, "rtt", 0.01 * s) for s in range(1, 101)]
    metric_lines_ingest(job_id=job.id, nodes=None, raw_lines=first)
    again = metric_lines_ingest(job_id=job.id, nodes=None, raw_lines=first[50:])  # resent after a reconnect
    assert again["chunks"] == []
    metric_lines_ingest(job_id=job.id, nodes=None, raw_lines=[metric(1, s, "rtt", 0.01 * s) for s in range(101, 201)])
    s = MetricSeries.objects.get(job=job, name="rtt")
    assert s.count == 200 and s.nodes["1"][3] == 200
    assert MetricChunk.objects.filter(job=job).count() == 2
    assert abs(histogram_quantile(s.histogram, 0.5) - 1.0) / 1.0 < 0.01


def test_bad_records_become_warnings_that_say_why_and_nothing_else_is_lost(student) -> None:
    job = job_make(student)
    bad = [
        {"node": 1, "seq": 1, "t": 1.0, "level": "metric", "text": "{not json"},
        {"node": 1, "seq": 2, "t": 1.0, "level": "metric", "text": json.dumps({"name": "x", "value": "fast"})},
        {"node": 1, "seq": 3, "t": 1.0, "level": "metric", "text": json.dumps({"name": "", "value": 1})},
        {"node": 1, "seq": 4, "t": 1.0, "level": "metric", "text": json.dumps({"name": "x", "value": 1, "type": "gauge"})},
        metric(1, 5, "x", 1.0),
        metric(1, 6, "x", 2.0, kind="count"),  # x is already an observe metric
    ]
    out = metric_lines_ingest(job_id=job.id, nodes=None, raw_lines=bad)
    reasons = [r["text"] for r in out["rejected"]]
    assert [(r["seq"], r["level"]) for r in out["rejected"]] == [(1, "warning"), (2, "warning"), (3, "warning"),
                                                                  (4, "warning"), (6, "warning")]
    assert "not JSON" in reasons[0] and "value must be a finite number" in reasons[1]
    assert "name must be a string" in reasons[2] and "type must be one of observe, count" in reasons[3]
    assert "x is a observe metric, this record is a count" in reasons[4]
    assert MetricSeries.objects.get(job=job, name="x").count == 1


def test_a_job_has_at_most_the_series_limit(student) -> None:
    job = job_make(student)
    lines = [metric(1, i + 1, f"m{i:03d}", 1.0) for i in range(MAX_SERIES_PER_JOB + 2)]
    out = metric_lines_ingest(job_id=job.id, nodes=None, raw_lines=lines)
    assert MetricSeries.objects.filter(job=job).count() == MAX_SERIES_PER_JOB
    assert len(out["rejected"]) == 2 and f"already has {MAX_SERIES_PER_JOB} metrics" in out["rejected"][0]["text"]
