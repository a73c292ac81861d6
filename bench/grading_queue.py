#!/usr/bin/env python3
"""Throughput of the grading queue: N submissions arriving at once (default 50), graded by the
service's own Celery worker through the real grader. `.venv/bin/python bench/grading_queue.py`.

It starts its own stack (as `./splaylab up` does) over PostgreSQL and Redis under var/bench/ (or
DATABASE_URL / REDIS_URL) on port 8777, enrols N fresh students in the demo course, and has each
submit one version of assignments/chord at the same instant: the reference, the starter and the
buggy variants in turn. Prints the time until every submission is graded, submissions per
minute, and the spread of each one's wait. Asserts nothing about time.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "backend"), str(ROOT / "tests")]

from cli import services  # noqa: E402
from stack_helpers import running_stack  # noqa: E402

CHORD = ROOT / "assignments" / "chord"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--submissions", type=int, default=50)
    args = p.parse_args()
    n = args.submissions
    sources = [(CHORD / rel).read_text() for rel in
               ["reference/app.lua", "starter/app.lua", *sorted(f"variants/{v.name}" for v in (CHORD / "variants").glob("*.lua"))]]
    with services.borrowed(), tempfile.TemporaryDirectory() as tmp, \
            running_stack(Path(tmp), 8777, "splaylab_bench", 7, daemons=2, max_instances=100, print_logs=False) as s:
        (demo,) = [c for c in s.api("GET", "/api/courses/", token=s.teacher_token)
                   if c["slug"] == "distributed-systems-demo"]
        tokens = s.manage("shell", "-c", (
            "from accounts.models import User; from courses.models import Course, Membership; "
            "from rest_framework.authtoken.models import Token; "
            "c = Course.objects.get(slug='distributed-systems-demo')\n"
            f"for i in range({n}):\n"
            "    u = User.objects.create_user(f'bench-student-{i}', password='x')\n"
            "    Membership.objects.create(user=u, course=c, role='student')\n"
            "    print(Token.objects.create(user=u).key)")).split()[-n:]
        url = f"/api/courses/{demo['id']}/assignments/chord/submissions/"

        def submit(i: int) -> int:
            return s.api("POST", url, {"source": sources[i % len(sources)]}, token=tokens[i])["id"]

        t0 = time.monotonic()
        with ThreadPoolExecutor(16) as pool:
            ids = list(pool.map(submit, range(n)))
        submitted = time.monotonic() - t0
        print(f"{n} submissions accepted in {submitted:.1f} s; grading...", file=sys.stderr)
        done: dict[int, dict] = {}
        while len(done) < n:
            for i, sid in enumerate(ids):
                if sid not in done:
                    sub = s.api("GET", f"/api/submissions/{sid}/", token=tokens[i])
                    if sub["status"] in ("graded", "error"):
                        done[sid] = sub
            time.sleep(1)
        total = time.monotonic() - t0
        created = {sid: datetime.fromisoformat(d["created_at"]) for sid, d in done.items()}
        waits = sorted((datetime.fromisoformat(d["graded_at"]) - created[sid]).total_seconds()
                       for sid, d in done.items() if d["graded_at"])
        errors = sum(d["status"] == "error" for d in done.values())
        print(f"grading queue: {n} submissions of assignments/chord arriving at once "
              f"(reference, starter and {len(sources) - 2} variants in turn)")
        print(f"  all graded after {total:.1f} s: {60 * n / total:.1f} submissions/minute, "
              f"{total / n:.1f} s each on average; {errors} grading errors")
        print(f"  submit -> graded: median {statistics.median(waits):.1f} s, max {max(waits):.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
