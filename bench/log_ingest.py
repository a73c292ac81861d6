"""How fast the controller stores a daemon's log batches, and what a resend costs.

`.venv/bin/python bench/log_ingest.py` (PostgreSQL under var/bench/ unless DATABASE_URL is set; a
scratch database `splaylab_bench_logs`). Feeds 100,000 print lines of a 100-node job in the
daemon's 200-line batches (one line in 50 holds a NUL, one in 50 escaped invalid bytes) through
logs.frames.frame_ingest (one unnest INSERT ... ON CONFLICT DO NOTHING per batch), then the same
batches again (a daemon resending its journal after a reconnect), and, for comparison, through
the ORM's bulk_create(update_conflicts=True) the controller used before issue 20. Prints
lines/s and the p50/p99 time per batch. Asserts nothing."""
from __future__ import annotations

import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "backend")]

from bench_db import bench_database_url  # noqa: E402

LINES, NODES, BATCH = 100_000, 100, 200




def batches() -> list[list[dict]]:
    rng = random.Random(1)
    seq = [0] * (NODES + 1)
    out, t = [], time.time()
    for b in range(LINES // BATCH):
        lines = []
        for i in range(BATCH):
            node = rng.randint(1, NODES)
            seq[node] += 1
            text = f"node {node} step {seq[node]} key {rng.getrandbits(32):08x}"
            if i % 50 == 0:
                text += " a\x00b"
            elif i % 50 == 1:
                text += " raw \\xff\\xfe"
            lines.append({"node": node, "seq": seq[node], "t": t + b * 0.01, "level": "print", "text": text})
        out.append(lines)
    return out


def timed(label: str, feed) -> None:
    per_batch = []
    started = time.perf_counter()
    for lines in BATCHES:
        t0 = time.perf_counter()
        feed(lines)
        per_batch.append(time.perf_counter() - t0)
    wall = time.perf_counter() - started
    per_batch.sort()
    print(f"{label:<46} {LINES / wall:>9,.0f} lines/s   batch p50 {1000 * statistics.median(per_batch):6.2f} ms"
          f"   p99 {1000 * per_batch[int(0.99 * len(per_batch))]:6.2f} ms")


def main() -> None:
    global BATCHES
    os.environ["DATABASE_URL"] = bench_database_url("splaylab_bench_logs")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splaylab.settings")
    import django
    django.setup()
    from django.core.management import call_command

    from accounts.models import User
    from jobs.models import Job
    from logs.frames import frame_ingest
    from logs.models import LogLine
    from logs.text import storable_text

    call_command("migrate", verbosity=0)
    BATCHES = batches()
    owner, _ = User.objects.get_or_create(username="bench-logs")
    jobs = [Job.objects.create(owner=owner, code="print(1)", nodes=NODES, duration=60) for _ in range(2)]

    def new(lines):
        frame_ingest(job_id=jobs[0].id, nodes=None, raw_lines=lines)

    def before(lines):  # issue 19's path, NUL escaped so that it can run at all
        rows = [LogLine(job_id=jobs[1].id, node=ln["node"], seq=ln["seq"], t=ln["t"], level=ln["level"],
                        text=storable_text(ln["text"])) for ln in lines]
        LogLine.objects.bulk_create(rows, update_conflicts=True, unique_fields=["job", "node", "seq"],
                                    update_fields=["seq"])

    print(f"{LINES:,} lines, {NODES} nodes, {BATCH}-line batches")
    timed("frame_ingest (unnest INSERT, DO NOTHING)", new)
    timed("frame_ingest, every batch resent", new)
    timed("before: bulk_create(update_conflicts)", before)
    timed("before, every batch resent", before)
    stored = LogLine.objects.filter(job=jobs[0]).count()
    print(f"stored once: {stored:,} of {LINES:,}")
    Job.objects.filter(id__in=[j.id for j in jobs]).delete()


if __name__ == "__main__":
    main()
