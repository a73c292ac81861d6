"""How fast the controller stores metric records, compact chunks against one row per sample.

`.venv/bin/python bench/metric_ingest.py` (PostgreSQL under var/bench/ unless DATABASE_URL is set; a
scratch database `splaylab_bench_metrics`). Feeds 100,000 `metrics.observe` records of a
100-node job, in the daemon's 200-line batches, through the two ingest paths the DaemonConsumer
could use: metrics.services.metric_lines_ingest (chunks + incremental aggregate) and
logs.services.log_lines_ingest (one LogLine row per record), and prints records/s, bytes per
record on disk, and the time to read the aggregate and every sample back. Asserts nothing."""
from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "backend")]

from bench_db import bench_database_url  # noqa: E402

RECORDS, NODES, BATCH = 100_000, 100, 200




def batches(level: str) -> list[list[dict]]:
    rng = random.Random(1)
    seq = [0] * (NODES + 1)
    out, t = [], time.time()
    for b in range(RECORDS // BATCH):
        lines = []
        for _ in range(BATCH):
            node = rng.randint(1, NODES)
            seq[node] += 1
            rec = {"name": "lookup_latency", "value": rng.lognormvariate(-0.5, 0.6), "type": "observe",
                   "fields": {"hops": rng.randint(1, 7), "key": f"{rng.getrandbits(32):08x}"}}
            lines.append({"node": node, "seq": seq[node], "t": t + b * 0.01, "level": level, "text": json.dumps(rec)})
        out.append(lines)
    return out


def main() -> None:
    os.environ["DATABASE_URL"] = bench_database_url("splaylab_bench_metrics")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splaylab.settings")
    import django
    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    from accounts.models import User
    from jobs.models import Job
    from logs.services import log_lines_ingest
    from metrics.selectors import metric_chunks_after, metric_summary
    from metrics.services import metric_lines_ingest

    with connection.cursor() as c:  # a fresh start: sizes on disk must not count earlier runs
        c.execute("TRUNCATE metrics_metricchunk, metrics_metricseries, logs_logline")
    user, _ = User.objects.get_or_create(username="bench-metrics")

    def size(table: str) -> int:
        with connection.cursor() as c:
            c.execute("VACUUM ANALYZE " + table)
            c.execute("SELECT pg_total_relation_size(%s)", [table])
            return c.fetchone()[0]

    print(f"metric ingest: {RECORDS:,} records of a {NODES}-node job in batches of {BATCH}")
    for label, level, ingest, table in (
            ("chunks + aggregate (metrics/)", "metric", metric_lines_ingest, "metrics_metricchunk"),
            ("one LogLine row per record", "info", log_lines_ingest, "logs_logline")):
        job = Job.objects.create(owner=user, code="-- bench", nodes=NODES, duration=60)
        work = batches(level)
        start = time.perf_counter()
        for lines in work:
            ingest(job_id=job.id, nodes=None, raw_lines=lines)
        elapsed = time.perf_counter() - start
        print(f"  {label:31s} {RECORDS / elapsed:>9,.0f} records/s   {size(table) / RECORDS:6.1f} bytes/record on disk")
    start = time.perf_counter()
    summary = metric_summary(job=Job.objects.filter(metric_series__isnull=False).get())
    t_summary = time.perf_counter() - start
    start, after, n = time.perf_counter(), 0, 0
    job_id = summary["job"]
    while page := metric_chunks_after(job_id=job_id, after=after, limit=500):
        n += sum(len(c["value"]) for c in page)
        after = page[-1]["id"]
    t_read = time.perf_counter() - start
    print(f"  read the aggregate: {t_summary * 1000:.0f} ms; every sample back in 500-chunk pages: "
          f"{n:,} in {t_read:.2f} s")
    print(f"  demand at the daemon's default quota: 1,000 records/s per node, "
          f"{NODES * 1000:,}/s for {NODES} nodes")


if __name__ == "__main__":
    main()
