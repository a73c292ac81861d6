"""The retention sweep: measuring, pruning by age and by size, in bounded batches, with a note."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from courses.tests.factories import course_make, member_add
from jobs.models import JobInstance
from logs.models import LogLine
from metrics.models import MetricChunk, MetricSeries
from retention.models import JobRetention
from retention.selectors import owner_policy
from retention.services import SWEEP_LOCK_KEY, retention_sweep
from traces.models import ProbeChunk, TraceChunk, TraceSummary

from .helpers import ended_job, full_job, logs_add, stored_bytes, traces_add

pytestmark = pytest.mark.django_db


def raw_rows(job) -> tuple[int, int, int, int]:
    return (LogLine.objects.filter(job=job).count(), MetricChunk.objects.filter(job=job).count(),
            TraceChunk.objects.filter(job=job).count(), ProbeChunk.objects.filter(job=job).count())


def test_a_sweep_measures_what_each_job_stores(student) -> None:
    job = full_job(student, ended=timedelta(hours=2))
    report = retention_sweep()
    row = JobRetention.objects.get(job=job)
    assert report.measured >= 1
    assert row.log_bytes == stored_bytes(LogLine, job) > 0
    assert row.metric_bytes == stored_bytes(MetricChunk, job) > 0
    assert row.trace_bytes == stored_bytes(TraceChunk, job) + stored_bytes(ProbeChunk, job) > 0
    assert row.settled  # ended two hours ago, past the one-hour settle time: final counts


def test_a_running_job_is_measured_again_until_it_settles(student) -> None:
    job = ended_job(student, ended=timedelta(minutes=5))
    logs_add(job, 10)
    retention_sweep()
    first = JobRetention.objects.get(job=job)
    assert not first.settled
    logs_add(job, 10, first_seq=11)
    retention_sweep()
    assert JobRetention.objects.get(job=job).log_bytes == stored_bytes(LogLine, job) > first.log_bytes


def test_age_prunes_raw_data_past_the_course_retention_and_keeps_the_job_and_its_summaries(student) -> None:
    course = course_make(retention_days=30)
    member_add(course, student)
    old = full_job(student, ended=timedelta(days=31))
    recent = full_job(student, ended=timedelta(days=29))
    assert raw_rows(old) == (20, 2, 3, 1)

    report = retention_sweep()

    assert raw_rows(old) == (0, 0, 0, 0)
    assert raw_rows(recent) == (20, 2, 3, 1)
    assert report.pruned_by_age == [old.id]
    old.refresh_from_db()
    assert old.state == "ENDED" and old.reason == "" and old.code
    assert JobInstance.objects.filter(job=old, state="ENDED").count() == 1
    assert MetricSeries.objects.get(job=old).count == 2
    assert TraceSummary.objects.get(job=old).state["nodes"]
    row = JobRetention.objects.get(job=old)
    today = timezone.now().strftime("%Y-%m-%d")
    assert row.pruned_all and row.total_bytes == 0
    assert row.pruned == {"log_lines": 20, "metric_chunks": 2, "trace_chunks": 3, "probe_chunks": 1}
    assert row.pruned_note.startswith(f"Logs, metrics and traces pruned on {today} (retention 30 days "
                                      f"after the job ended, course Distributed Systems)")


def test_a_job_marked_keep_and_a_course_without_age_limit_are_never_pruned(student, other_student) -> None:
    strict = course_make("strict", name="Strict", retention_days=1)
    lenient = course_make("lenient", name="Lenient", retention_days=0)
    member_add(strict, student)
    member_add(strict, other_student)
    member_add(lenient, other_student)  # other_student's most generous course keeps forever
    kept = full_job(student, ended=timedelta(days=5))
    JobRetention.objects.create(job=kept, keep=True)
    forever = full_job(other_student, ended=timedelta(days=400))

    retention_sweep()

    assert raw_rows(kept) == (20, 2, 3, 1)
    assert raw_rows(forever) == (20, 2, 3, 1)
    assert owner_policy(owner_id=other_student.id).days == 0


def test_jobs_outside_any_course_follow_the_service_default(student, settings) -> None:
    settings.SPLAYLAB_RETENTION_DAYS = 7
    job = full_job(student, ended=timedelta(days=8))
    retention_sweep()
    assert raw_rows(job) == (0, 0, 0, 0)
    assert "retention 7 days after the job ended, service default" in JobRetention.objects.get(job=job).pruned_note


def test_pruning_deletes_in_bounded_batches_and_a_spent_budget_resumes_next_sweep(student, settings) -> None:
    settings.SPLAYLAB_RETENTION_BATCH = 100
    job = ended_job(student, ended=timedelta(days=40))
    logs_add(job, 350)

    with CaptureQueriesContext(connection) as queries:
        first = retention_sweep(max_rows=150)
    deletes = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("DELETE FROM logs_logline")]
    # 100 then the 50 left in the budget, each its own statement on the oldest ids
    assert [re.search(r"LIMIT (\d+)", d).group(1) for d in deletes] == ["100", "50"]
    assert first.rows_deleted == 150 and LogLine.objects.filter(job=job).count() == 200
    assert LogLine.objects.filter(job=job).order_by("seq").first().seq == 151
    assert not JobRetention.objects.get(job=job).pruned_all

    retention_sweep()
    assert LogLine.objects.filter(job=job).count() == 0
    row = JobRetention.objects.get(job=job)
    assert row.pruned_all and row.pruned == {"log_lines": 350}


def test_size_prunes_the_oldest_rows_traces_first_until_the_job_fits(student) -> None:
    course = course_make(retention_days=0, retention_max_mb_per_job=1)
    member_add(course, student)
    job = ended_job(student, ended=timedelta(hours=2))
    traces_add(job)
    logs_add(job, 600, text_bytes=4000)  # ~2.4 MB of log text, stored compressed or not
    before = stored_bytes(LogLine, job)
    assert before > 1024 * 1024

    retention_sweep()  # measures the job (settled), then prunes it
    after = stored_bytes(LogLine, job) + stored_bytes(TraceChunk, job)
    assert TraceChunk.objects.filter(job=job).count() == 0 and ProbeChunk.objects.filter(job=job).count() == 0
    assert after <= 1024 * 1024
    assert after > 1024 * 1024 - 3 * 4100  # no more than the excess, give or take a couple of lines
    remaining = list(LogLine.objects.filter(job=job).order_by("seq").values_list("seq", flat=True))
    assert remaining == list(range(remaining[0], 601)) and remaining[0] > 1  # the oldest went
    row = JobRetention.objects.get(job=job)
    assert row.total_bytes == after and not row.pruned_all
    assert row.pruned["log_lines"] == remaining[0] - 1
    assert re.fullmatch(r"The oldest 3 trace chunks, 1 probe chunks, [\d,]+ log lines were pruned on "
                        r"\d{4}-\d\d-\d\d to keep the job under 1 MB \(retention limit, course Distributed "
                        r"Systems\)\. The job's state, instances and summaries are kept\.", row.pruned_note)


def test_size_leaves_a_job_that_has_not_settled_alone(student) -> None:
    course = course_make(retention_days=0, retention_max_mb_per_job=1)
    member_add(course, student)
    job = ended_job(student, ended=timedelta(minutes=10))
    logs_add(job, 600, text_bytes=4000)
    retention_sweep()
    assert LogLine.objects.filter(job=job).count() == 600


def test_a_sweep_while_another_runs_does_nothing(student) -> None:
    job = full_job(student, ended=timedelta(days=40))
    other = connections.create_connection("default")  # plays the sweep already under way
    try:
        with other.cursor() as cur:
            cur.execute("SELECT pg_advisory_lock(%s)", [SWEEP_LOCK_KEY])
        report = retention_sweep()
        with other.cursor() as cur:  # released now (a closed session's locks go a moment later)
            cur.execute("SELECT pg_advisory_unlock(%s)", [SWEEP_LOCK_KEY])
    finally:
        other.close()
    assert report.skipped and report.measured == 0
    assert raw_rows(job) == (20, 2, 3, 1)
    assert retention_sweep().pruned_by_age == [job.id]


def test_beat_runs_the_sweep_task_which_prunes(student, settings) -> None:
    from splaylab.celery import app
    from retention.tasks import retention_sweep as task

    entry = app.conf.beat_schedule["retention-sweep"]
    assert entry["task"] == task.name == "retention.tasks.retention_sweep"
    assert entry["schedule"] == 600.0  # SPLAYLAB_RETENTION_SWEEP's default
    settings.SPLAYLAB_RETENTION_DAYS = 2
    job = full_job(student, ended=timedelta(days=3))
    assert task.apply().get()["pruned_by_age"] == [job.id]
    assert raw_rows(job) == (0, 0, 0, 0)
