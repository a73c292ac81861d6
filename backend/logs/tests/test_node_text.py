"""Node output is data (logs.text, logs.frames): any text a node prints is stored, escaped
where PostgreSQL cannot hold it, and a batch the database refuses still leaves its lines."""
from jobs.tests.factories import job_make
from logs.frames import frame_ingest
from logs.models import LogLine
from logs.services import log_lines_ingest
from logs.text import MAX_TEXT, storable_text
from metrics.models import MetricChunk


def test_nul_reads_backslash_x00_and_everything_else_stays() -> None:
    assert storable_text("a\x00b") == "a\\x00b"
    assert storable_text("tab\tbell\x07 é € \\xff") == "tab\tbell\x07 é € \\xff"
    assert storable_text("lone \ud800 surrogate") == "lone \\ud800 surrogate"


def test_a_long_text_is_cut_and_says_so() -> None:
    text = storable_text("x" * 20_000)
    assert len(text) == MAX_TEXT
    assert text.endswith(" [line truncated at 8192 characters]")
    assert storable_text("y" * 20_000, limit=None) == "y" * 20_000


def test_lines_with_nul_and_surrogates_are_stored_escaped(student) -> None:
    job = job_make(student)
    stored = log_lines_ingest(job_id=job.id, nodes=None, raw_lines=[
        {"node": 1, "seq": 1, "t": 1.0, "level": "print", "text": "a\x00b"},
        {"node": 1, "seq": 2, "t": 1.0, "level": "print", "text": "c\udcffd"},
        {"node": 1, "seq": 3, "t": 1.0, "level": "print", "text": "\\xff raw byte from the daemon"}])
    assert [ln["text"] for ln in stored] == ["a\\x00b", "c\\udcffd", "\\xff raw byte from the daemon"]
    assert list(LogLine.objects.order_by("seq").values_list("text", flat=True)) == [
        "a\\x00b", "c\\udcffd", "\\xff raw byte from the daemon"]


def test_out_of_range_numbers_are_skipped_not_a_database_error(student) -> None:
    job = job_make(student)
    stored = log_lines_ingest(job_id=job.id, nodes=None, raw_lines=[
        {"node": 1, "seq": 2**40, "t": 1.0, "level": "print", "text": "seq beyond an integer"},
        {"node": 2**40, "seq": 1, "t": 1.0, "level": "print", "text": "node beyond an integer"},
        {"node": 1, "seq": 1, "t": float("nan"), "level": "print", "text": "no time"},
        {"node": 1, "seq": 2, "t": 1.0, "level": "print", "text": "fine"}])
    assert [ln["text"] for ln in stored] == ["fine"]


def test_a_resent_batch_inserts_and_returns_only_new_lines(student) -> None:
    job = job_make(student)
    first = [{"node": 1, "seq": s, "t": 1.0, "level": "print", "text": f"l{s}"} for s in (1, 2)]
    assert [ln["seq"] for ln in log_lines_ingest(job_id=job.id, nodes=None, raw_lines=first)] == [1, 2]
    again = first + [{"node": 1, "seq": 3, "t": 1.0, "level": "print", "text": "l3"}]
    assert [ln["seq"] for ln in log_lines_ingest(job_id=job.id, nodes=None, raw_lines=again)] == [3]
    assert LogLine.objects.filter(job=job).count() == 3


def test_a_batch_the_database_refuses_keeps_its_log_lines_and_says_why(student) -> None:
    """PostgreSQL's jsonb refuses \\u0000 in a metric's fields: the metric record becomes a
    warning naming the error, the batch's other lines are stored, nothing raises."""
    job = job_make(student)
    stored = frame_ingest(job_id=job.id, nodes=None, raw_lines=[
        {"node": 1, "seq": 1, "t": 1.0, "level": "print", "text": "before"},
        {"node": 1, "seq": 2, "t": 1.0, "level": "metric",
         "text": '{"name": "lat", "value": 1, "type": "observe", "fields": {"who": "a\\u0000b"}}'},
        {"node": 1, "seq": 3, "t": 1.0, "level": "print", "text": "after"}])
    assert not MetricChunk.objects.filter(job=job).exists()
    rows = list(LogLine.objects.filter(job=job).order_by("seq").values_list("seq", "level", "text"))
    assert [(seq, level) for seq, level, _ in rows] == [(1, "print"), (2, "warning"), (3, "print")]
    assert rows[1][2].startswith("metric record not stored (") and '"fields"' in rows[1][2]
    assert [ln["seq"] for ln in stored.lines] == [1, 2, 3]
