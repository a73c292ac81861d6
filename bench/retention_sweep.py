"""What retention costs: measuring a job, pruning it in batches while ingest goes on, and
streaming its archive.

`.venv/bin/python bench/retention_sweep.py [--lines 300000]` (PostgreSQL under var/bench/ unless
DATABASE_URL is set; a scratch database `splaylab_bench_retention`). Stores one ended job of
LINES log lines (~100 bytes of text each) and prints: the time to measure it (the sweep's
grouped column-size sum), the archive's size and time, and the Python heap's peak while it is
streamed (a second pass) (tracemalloc: the archive is never held whole), then a sweep that prunes it by age in
batches of SPLAYLAB_RETENTION_BATCH while another job ingests 200-line batches: rows deleted per
second, the slowest DELETE batch, and the ingest batches' p50/p99/max latency meanwhile.
Asserts nothing."""
from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import threading
import time
import tracemalloc
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "backend")]

from bench_db import bench_database_url  # noqa: E402

DB = "splaylab_bench_retention"




def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=300_000)
    lines = parser.parse_args().lines
    os.environ["DATABASE_URL"] = bench_database_url(DB)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splaylab.settings")
    import django
    django.setup()
    from asgiref.sync import async_to_sync
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection, connections
    from django.utils import timezone

    call_command("migrate", verbosity=0)
    from accounts.models import User
    from jobs.models import Job
    from logs.models import LogLine
    from logs.services import log_lines_ingest
    from retention.archive import archive_stream
    from retention.models import JobRetention
    from retention.services import retention_sweep, usage_measure

    with connection.cursor() as c:
        c.execute("TRUNCATE logs_logline, retention_jobretention")
    user, _ = User.objects.get_or_create(username="bench-retention")
    now = timezone.now()
    old = Job.objects.create(owner=user, code="-- bench", nodes=10, duration=60, state=Job.State.ENDED,
                             ended_at=now - timedelta(days=400))
    print(f"retention: one ended job of {lines:,} log lines, batches of {settings.SPLAYLAB_RETENTION_BATCH:,}")
    start = time.perf_counter()
    for first in range(1, lines + 1, 10_000):
        LogLine.objects.bulk_create([LogLine(job=old, node=1 + seq % 10, seq=seq, t=1.7e9 + seq, level="print",
                                             text=f"node says {seq}: {secrets.token_hex(44)}")
                                     for seq in range(first, min(first + 10_000, lines + 1))])
    print(f"  stored in {time.perf_counter() - start:.1f} s")

    start = time.perf_counter()
    usage_measure(jobs=[old])
    counted = JobRetention.objects.get(job=old).log_bytes
    print(f"  measure (grouped column-size sum): {time.perf_counter() - start:.2f} s, {counted / 1e6:.1f} MB counted")

    async def drain() -> tuple[int, float]:
        size, t0 = 0, time.perf_counter()
        async for piece in archive_stream(old, made="bench"):
            size += len(piece)
        return size, time.perf_counter() - t0

    size, elapsed = async_to_sync(drain)()
    tracemalloc.start()  # a second pass for the heap's peak (tracing slows it down)
    async_to_sync(drain)()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"  archive: {size / 1e6:.1f} MB zip in {elapsed:.1f} s ({lines / elapsed:,.0f} lines/s), "
          f"Python heap peak {peak / 1e6:.1f} MB while streaming")

    live = Job.objects.create(owner=user, code="-- bench", nodes=10, duration=60, state=Job.State.RUNNING)
    latencies: list[float] = []
    stop = threading.Event()

    def ingest() -> None:
        seq = 0
        try:
            while not stop.is_set():
                batch = [{"node": 1, "seq": seq + i + 1, "t": time.time(), "level": "print",
                          "text": "live line " + secrets.token_hex(40)} for i in range(200)]
                seq += 200
                t0 = time.perf_counter()
                log_lines_ingest(job_id=live.id, nodes=None, raw_lines=batch)
                latencies.append(time.perf_counter() - t0)
        finally:
            connections.close_all()

    batch_times: list[float] = []

    thread = threading.Thread(target=ingest)
    thread.start()
    time.sleep(0.5)  # ingest under way first
    start = time.perf_counter()
    with connection.execute_wrapper(lambda execute, sql, params, many, context: _timed(
            execute, sql, params, many, context, batch_times)):
        report = retention_sweep(max_rows=lines + 1)
    elapsed = time.perf_counter() - start
    stop.set()
    thread.join()
    ordered = sorted(latencies)
    print(f"  sweep: {report.rows_deleted:,} rows pruned in {elapsed:.1f} s ({report.rows_deleted / elapsed:,.0f} rows/s), "
          f"{len(batch_times)} DELETE batches, slowest {max(batch_times) * 1000:.0f} ms")
    print(f"  meanwhile {len(ordered)} ingest batches of 200 lines: p50 {statistics.median(ordered) * 1000:.1f} ms, "
          f"p99 {ordered[int(len(ordered) * 0.99) - 1] * 1000:.1f} ms, max {ordered[-1] * 1000:.1f} ms")


def _timed(execute, sql, params, many, context, times: list[float]):
    t0 = time.perf_counter()
    try:
        return execute(sql, params, many, context)
    finally:
        if sql.startswith("DELETE FROM"):
            times.append(time.perf_counter() - t0)


if __name__ == "__main__":
    main()
