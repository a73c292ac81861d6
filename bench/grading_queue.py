#!/usr/bin/env python3
"""Throughput of the grading queue: N submissions arriving at once (default 50), graded by the
service's own Celery worker through the real grader. `.venv/bin/python bench/grading_queue.py`.

It starts its own stack (as `./splaylab up` does) over PostgreSQL and Redis under var/bench/ (or
DATABASE_URL / REDIS_URL) on port 8777, enrols N fresh students in the demo course, and has each
submit one version of assignments/chord at the same instant: the reference, the starter and the
buggy variants in turn. Prints the time until every submission is graded, submissions per
minute, and the spread of each one's wait. Asserts nothing about time.

Each student watches as their browser does (--watch push, the default): signed in, the page's
socket /ws/submissions/ open, the submission read once when the server says it is graded, and
read again every 20 s meanwhile (the page's back-up poll). --watch poll reads every pending
submission every second instead (the pages before status pushes polled every 2 s).
"""
from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import json
import statistics
import urllib.request
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
from proc_cpu import ProcCPU  # noqa: E402

CHORD = ROOT / "assignments" / "chord"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--submissions", type=int, default=50)
    p.add_argument("--watch", choices=("push", "poll"), default="push")
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
        cookies = [session_cookie(s.url, f"bench-student-{i}") for i in range(n)] if args.watch == "push" else []

        def submit(i: int) -> int:
            return s.api("POST", url, {"source": sources[i % len(sources)]}, token=tokens[i])["id"]

        t0 = time.monotonic()
        with ProcCPU() as cpu:
            if args.watch == "push":
                done = asyncio.run(watch_pushed(s, tokens, cookies, submit))
            else:
                with ThreadPoolExecutor(16) as pool:
                    ids = list(pool.map(submit, range(n)))
                print(f"{n} submissions accepted in {time.monotonic() - t0:.1f} s; grading...", file=sys.stderr)
                done = watch_polled(s, tokens, ids)
        total = time.monotonic() - t0
        created = {sid: datetime.fromisoformat(d["created_at"]) for sid, d in done.items()}
        waits = sorted((datetime.fromisoformat(d["graded_at"]) - created[sid]).total_seconds()
                       for sid, d in done.items() if d["graded_at"])
        errors = sum(d["status"] == "error" for d in done.values())
        print(f"grading queue: {n} submissions of assignments/chord arriving at once "
              f"(reference, starter and {len(sources) - 2} variants in turn), students watching by {args.watch}")
        print(f"  all graded after {total:.1f} s: {60 * n / total:.1f} submissions/minute, "
              f"{total / n:.1f} s each on average; {errors} grading errors")
        print(f"  submit -> graded: median {statistics.median(waits):.1f} s, max {max(waits):.1f} s")
        print(cpu.report())
    return 0


def session_cookie(base: str, username: str) -> str:
    """The Cookie header of a browser signed in as `username` (password "x"), as the login page does it."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(base + "/api/auth/me/", timeout=30).read()   # plants csrftoken
    csrf = next(c.value for c in jar if c.name == "csrftoken")
    req = urllib.request.Request(base + "/api/auth/login/", method="POST",
                                 data=json.dumps({"username": username, "password": "x"}).encode(),
                                 headers={"Content-Type": "application/json", "X-CSRFToken": csrf, "Referer": base + "/login"})
    opener.open(req, timeout=30).read()
    return "; ".join(f"{c.name}={c.value}" for c in jar)


async def watch_pushed(s, tokens: list[str], cookies: list[str], submit) -> dict[int, dict]:
    """Each student: the page's socket open, then the submission; read once the push says it is
    settled, and every 20 s meanwhile (the page's back-up poll)."""
    from websockets.asyncio.client import connect

    ws_url = s.url.replace("http", "ws", 1) + "/ws/submissions/"
    done: dict[int, dict] = {}

    async def student(i: int) -> None:
        async with connect(ws_url, additional_headers={"Cookie": cookies[i], "Origin": s.url}) as ws:
            assert json.loads(await ws.recv())["type"] == "submission.watch"
            sid = await asyncio.to_thread(submit, i)
            while sid not in done:
                try:
                    m = json.loads(await asyncio.wait_for(ws.recv(), timeout=20))
                except TimeoutError:
                    m = None
                if m is None or (m["type"] == "submission.status" and m["submission"]["id"] == sid):
                    sub = await asyncio.to_thread(s.api, "GET", f"/api/submissions/{sid}/", None, tokens[i])
                    if sub["status"] in ("graded", "error"):
                        done[sid] = sub

    await asyncio.gather(*(student(i) for i in range(len(tokens))))
    return done


def watch_polled(s, tokens: list[str], ids: list[int]) -> dict[int, dict]:
    done: dict[int, dict] = {}
    while len(done) < len(ids):
        for i, sid in enumerate(ids):
            if sid not in done:
                sub = s.api("GET", f"/api/submissions/{sid}/", token=tokens[i])
                if sub["status"] in ("graded", "error"):
                    done[sid] = sub
        time.sleep(1)
    return done


if __name__ == "__main__":
    sys.exit(main())
