"""logs.services.log_lines_ingest"""
from jobs.tests.factories import job_make
from logs.models import LogLine
from logs.services import MAX_TEXT, log_lines_ingest


def test_stores_valid_lines_and_returns_them_with_ids(student) -> None:
    job = job_make(student)
    out = log_lines_ingest(job_id=job.id, nodes={1, 2}, raw_lines=[
        {"node": 2, "seq": 1, "t": 5.5, "level": "warning", "text": "w"},
        {"node": 1, "seq": 1, "t": 5.0, "level": "info", "text": "i"},
        {"node": 1, "seq": "x", "t": 5.0, "level": "info", "text": "bad seq"},
        {"node": 3, "seq": 1, "t": 5.0, "level": "info", "text": "not my node"},
        "garbage",
    ])
    rows = list(LogLine.objects.order_by("id"))
    assert [(r.node, r.text) for r in rows] == [(2, "w"), (1, "i")]
    assert out == [{"id": r.id, "node": r.node, "seq": r.seq, "t": r.t, "level": r.level,
                    "text": r.text} for r in rows]


def test_duplicates_are_ignored(student) -> None:
    job = job_make(student)
    line = {"node": 1, "seq": 7, "t": 1.0, "level": "print", "text": "once"}
    log_lines_ingest(job_id=job.id, nodes=None, raw_lines=[line])
    log_lines_ingest(job_id=job.id, nodes=None, raw_lines=[{**line, "text": "again"}])
    assert list(LogLine.objects.values_list("text", flat=True)) == ["once"]


def test_long_text_is_truncated(student) -> None:
    job = job_make(student)
    log_lines_ingest(job_id=job.id, nodes=None,
                     raw_lines=[{"node": 1, "seq": 1, "t": 1.0, "level": "print", "text": "x" * 20000}])
    assert len(LogLine.objects.get().text) == MAX_TEXT


def test_a_batch_repeating_a_seq_keeps_the_first_line(student) -> None:
    job = job_make(student)
    stored = log_lines_ingest(job_id=job.id, nodes=None, raw_lines=[
        {"node": 1, "seq": 1, "t": 1.0, "level": "info", "text": "first"},
        {"node": 1, "seq": 1, "t": 2.0, "level": "info", "text": "again"},
        {"node": 1, "seq": 2, "t": 3.0, "level": "info", "text": "second"}])
    assert [(line["seq"], line["text"]) for line in stored] == [(1, "first"), (2, "second")]
    assert list(LogLine.objects.filter(job=job).values_list("text", flat=True).order_by("seq")) == [
        "first", "second"]
