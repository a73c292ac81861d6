"""traces.services.trace_lines_ingest: chunks per node and batch, the summary, resends, bad lines."""
from __future__ import annotations

from jobs.tests.factories import job_make
from logs.models import LogLine
from logs.services import log_lines_ingest
from metrics.models import MetricChunk, MetricSeries
from metrics.services import metric_lines_ingest
from traces.models import ProbeChunk, TraceChunk, TraceSummary
from traces.selectors import trace_summary
from traces.services import trace_lines_ingest

from .fixtures import ROWS, SUMMARY, T0, probe_line, trace_line


def _batches() -> list[list[dict]]:
    """The fixture as two daemon batches: node 1's first two rows, then everything else."""
    return [[trace_line(1, 1, ROWS[1][:2])],
            [trace_line(1, 2, ROWS[1][2:]), trace_line(2, 1, ROWS[2]),
             trace_line(3, 1, ROWS[3][:1]), trace_line(3, 2, ROWS[3][1:])]]


def test_one_chunk_per_node_and_batch_and_the_summary_counts_everything(student) -> None:
    job = job_make(student, nodes=3)
    first, second = _batches()
    assert trace_lines_ingest(job_id=job.id, nodes=None, raw_lines=first) == {
        "chunks": 1, "rows": 2, "probes": 0, "rejected": []}
    out = trace_lines_ingest(job_id=job.id, nodes={1, 2, 3}, raw_lines=second)
    assert (out["chunks"], out["rows"], out["rejected"]) == (3, 7, [])
    chunks = list(TraceChunk.objects.filter(job=job).order_by("id").values_list("node", "size"))
    assert chunks == [(1, 2), (1, 2), (2, 2), (3, 3)]  # node 3's two lines of a batch: one chunk
    assert TraceChunk.objects.get(job=job, node=2).rows == ROWS[2]  # t kept in epoch seconds
    assert trace_summary(job=job) == SUMMARY


def test_a_batch_sent_again_after_a_reconnection_counts_once(student) -> None:
    job = job_make(student, nodes=3)
    first, second = _batches()
    for batch in (first, first, second, second[1:], first + second):
        trace_lines_ingest(job_id=job.id, nodes=None, raw_lines=batch)
    assert TraceChunk.objects.filter(job=job).count() == 4
    assert trace_summary(job=job) == SUMMARY
    assert TraceSummary.objects.get(job=job).marks == {"1": 2, "2": 1, "3": 2}


def test_only_this_daemons_nodes_are_taken(student) -> None:
    job = job_make(student, nodes=3)
    _, second = _batches()
    out = trace_lines_ingest(job_id=job.id, nodes={2}, raw_lines=second)
    assert (out["chunks"], out["rows"]) == (1, 2)
    assert [n["node"] for n in trace_summary(job=job)["nodes"]] == [2]


def test_bad_lines_and_rows_become_warnings_that_say_why_and_good_rows_are_kept(student) -> None:
    job = job_make(student, nodes=1)
    good = ROWS[1][0]
    lines = [
        {"node": 1, "seq": 1, "t": T0, "level": "trace", "text": "{not json"},
        {"node": 1, "seq": 2, "t": T0, "level": "trace", "text": '{"row": []}'},
        trace_line(1, 3, [good, [T0, "call", 2], [T0, "gossip", 2, "", 1, 0, "ok", "", 0, 0, 1],
                          [T0, "send", 2, "", -5, 0, "ok", "", 0, 0, 1]]),
        {"node": 1, "seq": 4, "t": T0, "level": "probe", "text": '{"value": 3}'},
    ]
    out = trace_lines_ingest(job_id=job.id, nodes=None, raw_lines=lines)
    assert (out["chunks"], out["rows"], out["probes"]) == (1, 1, 0)
    assert [(w["seq"], w["level"], w["text"]) for w in out["rejected"]] == [
        (1, "warning", "trace record dropped (not JSON): {not json"),
        (2, "warning", 'trace record dropped (expected {"rows": [...]}): {"row": []}'),
        (3, "warning", "trace: 3 of 4 rows dropped (a row is an array of 11 columns)"),
        (4, "warning", 'probe record dropped (name must be a string of 1 to 100 characters): {"value": 3}'),
    ]
    # integral floats (cjson may write them) are integers, the row otherwise as written
    trace_lines_ingest(job_id=job.id, nodes=None, raw_lines=[
        trace_line(1, 5, [[T0, "send", 2, "", 12.0, 0, "ok", "", 0, 0.5, 1.0]])])
    assert TraceChunk.objects.filter(job=job).last().rows == [[T0, "send", 2, "", 12, 0, "ok", "", 0, 0.5, 1]]


def test_probe_records_are_the_harness_s_never_the_apps_metrics_nor_log_lines(student) -> None:
    job = job_make(student, nodes=2)
    lines = [probe_line(1, 1, "lookup", {"key": "ab", "owner": 2}, {"hops": 3}),
             {"node": 1, "seq": 2, "t": T0, "level": "print", "text": "hello"},
             probe_line(2, 1, "lookup", 0.25),
             trace_line(2, 2, ROWS[2])]
    out = trace_lines_ingest(job_id=job.id, nodes=None, raw_lines=lines)
    assert (out["chunks"], out["probes"]) == (1, 2)
    assert metric_lines_ingest(job_id=job.id, nodes=None, raw_lines=lines)["chunks"] == []
    log_lines_ingest(job_id=job.id, nodes=None, raw_lines=lines)
    assert list(LogLine.objects.filter(job=job).values_list("level", "text")) == [("print", "hello")]
    assert not MetricChunk.objects.filter(job=job).exists() and not MetricSeries.objects.filter(job=job).exists()
    probes = {c.node: c.records for c in ProbeChunk.objects.filter(job=job)}
    assert probes == {1: [{"t": T0 + 2, "name": "lookup", "value": {"key": "ab", "owner": 2}, "fields": {"hops": 3}}],
                      2: [{"t": T0 + 2, "name": "lookup", "value": 0.25, "fields": None}]}
    trace_lines_ingest(job_id=job.id, nodes=None, raw_lines=lines)  # resent: not stored twice
    assert ProbeChunk.objects.filter(job=job).count() == 2


def test_a_simulated_jobs_virtual_seconds_are_stored_as_its_start_plus_them(student) -> None:
    job = job_make(student, nodes=1, mode="sim")
    trace_lines_ingest(job_id=job.id, nodes=None, t_offset=T0,
                       raw_lines=[trace_line(1, 1, [[2.5, "send", 2, "", 10, 0, "ok", "", 0, 0, 1]])])
    assert TraceChunk.objects.get(job=job).rows[0][0] == T0 + 2.5
