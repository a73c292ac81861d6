"""A class at once: N simulated students against a stack of its own, latency per kind of request.

`.venv/bin/python bench/class_load.py [--students 100] [--seconds 60] [--port 8779]
[--server URL --teacher-token T]` starts its own stack (as `./splaylab up` does: web processes
per SPLAYLAB_WEB_WORKERS, worker, beat, two local daemons) over PostgreSQL and Redis under
var/bench/ (or DATABASE_URL / REDIS_URL), creates N student accounts, then each student:

- logs in as the browser does (session + CSRF) and fetches its API token (`login`, during a
  ramp-up before the measured window: each is one password hash, by design slow);
- in the measured window's first 5 s (each at a random moment: a class told to start, not one
  instant), opens its page: reads its workspace, submits a first job and opens one websocket on
  that job's live view (/ws/jobs/<id>/); after each later submit its websocket moves to the new
  job's live view, as the editor's run bar opens the new job's page;
- for SECONDS, about once a second (random think time 0.5-1.5 s), one of: read its workspace
  (`workspace_read`), list its jobs (`job_list`), read a job with its instances (`job_read`),
  read its job's logs (`logs_read`), save its files (`workspace_save`), and every ~20 s submit a
  small live job (2 nodes printing once a second for 20 s: `job_submit`).

It prints p50/p95/p99/max latency and the errors per kind (an error: an exception or a status
other than 2xx; a websocket that fails to open or closes early), requests/s, the websocket
messages received, and the machine's load. The issue's goal: p95 <= 150 ms, 0 errors at 100
students. Asserts nothing.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import httpx
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "backend"), str(ROOT / "tests")]

JOB_APP = """-- a small job of the class: two nodes saying hello once a second
require "splay.base"
events.run(function()
  for i = 1, 20 do print("node " .. job.position .. " tick " .. i); events.sleep(1) end
end)
"""
SUBMIT_EVERY = 20.0  # seconds between two jobs of one student
OPEN_SPREAD = 5.0  # seconds over which the students open their page once all are logged in
KINDS = ("workspace_read", "job_list", "job_read", "logs_read", "workspace_save")
WEIGHTS = (30, 30, 15, 10, 15)


class Figures:
    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, list[str]] = defaultdict(list)
        self.ws_messages = 0
        self.measuring = False

    def add(self, kind: str, seconds: float, error: str | None = None) -> None:
        if not self.measuring and kind != "login":
            return
        self.latency[kind].append(seconds)
        if error:
            self.errors[kind].append(error)


class Student:
    def __init__(self, url: str, name: str, password: str, figures: Figures) -> None:
        self.url, self.name, self.password, self.figures = url, name, password, figures
        self.http = httpx.AsyncClient(base_url=url, timeout=30)
        self.token = ""
        self.workspace: dict | None = None
        self.jobs: list[int] = []
        self.ws_task: asyncio.Task | None = None
        self.cookie = ""

    async def call(self, kind: str, method: str, path: str, body: dict | None = None,
                   headers: dict | None = None) -> httpx.Response | None:
        t0 = time.perf_counter()
        try:
            resp = await self.http.request(method, path, json=body, headers=headers or self.auth())
        except httpx.HTTPError as e:
            self.figures.add(kind, time.perf_counter() - t0, f"{type(e).__name__}: {e}")
            return None
        error = None if resp.is_success else f"HTTP {resp.status_code}: {resp.text[:120]}"
        self.figures.add(kind, time.perf_counter() - t0, error)
        return resp if resp.is_success else None

    def auth(self) -> dict:
        return {"Authorization": f"Token {self.token}"} if self.token else {}

    async def login(self) -> bool:
        """The browser's way (session, CSRF), then the token the rest uses."""
        t0 = time.perf_counter()
        try:
            await self.http.get("/api/auth/me/")
            csrf = self.http.cookies.get("csrftoken", "")
            resp = await self.http.post("/api/auth/login/", json={"username": self.name, "password": self.password},
                                        headers={"X-CSRFToken": csrf, "Referer": self.url + "/"})
            resp.raise_for_status()
            token = await self.http.get("/api/auth/token/")
            token.raise_for_status()
            self.token = token.json()["token"]
        except (httpx.HTTPError, KeyError, ValueError) as e:
            self.figures.add("login", time.perf_counter() - t0, f"{type(e).__name__}: {e}")
            return False
        self.figures.add("login", time.perf_counter() - t0)
        self.cookie = "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())
        return True

    async def prepare(self) -> None:
        resp = await self.call("workspace_read", "GET", "/api/workspaces/")
        if resp is not None and resp.json():
            listed = resp.json()
            first = listed[0] if isinstance(listed, list) else listed
            detail = await self.call("workspace_read", "GET", f"/api/workspaces/{first['id']}/")
            self.workspace = detail.json() if detail is not None else None
        await self.submit()

    async def submit(self) -> None:
        """A run, whose live view the student then watches instead of the last one (the editor's
        run bar opens the new job's page)."""
        resp = await self.call("job_submit", "POST", "/api/jobs/",
                               {"code": JOB_APP, "nodes": 2, "duration": 25, "name": f"{self.name} tick"})
        if resp is None:
            return
        self.jobs.append(resp.json()["id"])
        if self.ws_task is not None:
            self.ws_task.cancel()
            await asyncio.gather(self.ws_task, return_exceptions=True)
        self.ws_task = asyncio.create_task(self.watch(self.jobs[-1]))

    async def watch(self, job_id: int) -> None:
        """One websocket on the job's live view, held until cancelled."""
        ws_url = self.url.replace("http", "ws", 1) + f"/ws/jobs/{job_id}/"
        try:
            async with websockets.connect(ws_url, additional_headers={"Cookie": self.cookie, "Origin": self.url},
                                          max_size=None, open_timeout=30) as ws:
                self.figures.add("ws_open", 0.0)
                async for _ in ws:
                    self.figures.ws_messages += 1
            self.figures.add("ws_open", 0.0, "closed by the server")
        except asyncio.CancelledError:
            raise
        except Exception as e:  # any failure to open or hold it counts
            self.figures.add("ws_open", 0.0, f"{type(e).__name__}: {e}")

    async def act(self, until: float) -> None:
        next_submit = time.monotonic() + random.uniform(0, SUBMIT_EVERY)
        while time.monotonic() < until:
            await asyncio.sleep(random.uniform(0.5, 1.5))
            if time.monotonic() >= until:
                break
            if time.monotonic() >= next_submit:
                next_submit += SUBMIT_EVERY
                await self.submit()
                continue
            kind = random.choices(KINDS, WEIGHTS)[0]
            job = self.jobs[-1] if self.jobs else None
            ws = self.workspace
            if kind == "workspace_read" and ws:
                await self.call(kind, "GET", f"/api/workspaces/{ws['id']}/")
            elif kind == "job_list":
                await self.call(kind, "GET", "/api/jobs/")
            elif kind == "job_read" and job:
                await self.call(kind, "GET", f"/api/jobs/{job}/")
            elif kind == "logs_read" and job:
                await self.call(kind, "GET", f"/api/jobs/{job}/logs/?after=0&limit=200")
            elif kind == "workspace_save" and ws:
                files = [{"path": "app.lua", "content": f"-- saved at {time.time():.3f}\n" + JOB_APP}]
                await self.call(kind, "PUT", f"/api/workspaces/{ws['id']}/", {"files": files})

    async def close(self) -> None:
        if self.ws_task is not None:
            self.ws_task.cancel()
            await asyncio.gather(self.ws_task, return_exceptions=True)
        await self.http.aclose()


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


async def class_run(url: str, accounts: list[tuple[str, str]], seconds: float, ramp: float) -> Figures:
    figures = Figures()
    students = [Student(url, name, pw, figures) for name, pw in accounts]

    async def arrive(st: Student, delay: float) -> bool:
        await asyncio.sleep(delay)
        return await st.login()

    async def attend(st: Student, until: float) -> None:
        """Open the page (workspace, a first job, its live view) at some moment of the first
        OPEN_SPREAD seconds, as a class does when told to start, then work."""
        await asyncio.sleep(random.uniform(0, OPEN_SPREAD))
        await st.prepare()
        await st.act(until)

    print(f"{len(students)} students log in over {ramp:.0f} s ...", flush=True)
    ok = await asyncio.gather(*(arrive(st, ramp * i / len(students)) for i, st in enumerate(students)))
    present = [st for st, good in zip(students, ok) if good]
    figures.measuring = True
    print(f"{len(present)} students in; each opens its page (workspace, a job, its live view) within "
          f"{OPEN_SPREAD:.0f} s, then works; measuring {seconds:.0f} s ...", flush=True)
    t0 = time.monotonic()
    load_before = os.getloadavg()
    await asyncio.gather(*(attend(st, t0 + seconds) for st in present))
    elapsed = time.monotonic() - t0
    figures.measuring = False
    await asyncio.gather(*(st.close() for st in students))
    report(figures, len(students), elapsed, load_before)
    return figures


def report(f: Figures, students: int, elapsed: float, load_before: tuple[float, ...]) -> None:
    total = sum(len(v) for k, v in f.latency.items() if k not in ("login", "ws_open"))
    print(f"\nclass load: {students} students, {elapsed:.0f} s measured, {total / elapsed:.1f} requests/s; "
          f"load average {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after ({os.cpu_count()} cores)")
    print(f"  {'kind':15s} {'n':>6s} {'p50 ms':>8s} {'p95 ms':>8s} {'p99 ms':>8s} {'max ms':>8s} {'errors':>7s}")
    every: list[float] = []
    for kind in ("login", "job_submit", *KINDS):
        values = f.latency.get(kind, [])
        if not values:
            continue
        ms = [v * 1e3 for v in values]
        if kind != "login":
            every += ms
        print(f"  {kind:15s} {len(ms):6d} {statistics.median(ms):8.1f} {pct(ms, .95):8.1f} {pct(ms, .99):8.1f} "
              f"{max(ms):8.1f} {len(f.errors.get(kind, [])):7d}")
    if every:
        print(f"  {'all but login':15s} {len(every):6d} {statistics.median(every):8.1f} {pct(every, .95):8.1f} "
              f"{pct(every, .99):8.1f} {max(every):8.1f} "
              f"{sum(len(v) for k, v in f.errors.items() if k not in ('login', 'ws_open')):7d}")
    opened = len(f.latency.get("ws_open", []))
    print(f"  websockets: {opened - len(f.errors.get('ws_open', []))} opened (one per job watched), "
          f"{len(f.errors.get('ws_open', []))} failed or closed early; {f.ws_messages} messages received")
    for kind, errs in f.errors.items():
        for e in sorted(set(errs))[:3]:
            print(f"  error ({kind}): {e}")


def accounts_create(s, count: int) -> list[tuple[str, str]]:
    """`count` plain student accounts in one manage.py call (one password hash shared: creating
    them is not what is measured)."""
    prefix = f"class{int(time.time()) % 100000}"
    s.manage("shell", "-c", (
        "from accounts.models import User; from django.contrib.auth.hashers import make_password; "
        "h = make_password('pw-class'); "
        f"User.objects.bulk_create([User(username='{prefix}-%d' % i, password=h) for i in range({count})])"))
    return [(f"{prefix}-{i}", "pw-class") for i in range(count)]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--students", type=int, default=100)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--ramp", type=float, default=0, help="seconds over which students log in (default: students/8)")
    p.add_argument("--port", type=int, default=8779)
    p.add_argument("--slots", type=int, default=400, help="slots per local daemon")
    args = p.parse_args()
    ramp = args.ramp or args.students / 8

    from cli import services
    from stack_helpers import running_stack

    with services.borrowed(), tempfile.TemporaryDirectory() as tmp, \
            running_stack(Path(tmp), args.port, "splaylab_bench_class", 9, daemons=2,
                          max_instances=args.slots, print_logs=False) as s:
        print(f"stack up at {s.url} (web processes: {os.environ.get('SPLAYLAB_WEB_WORKERS') or 'default'})",
              flush=True)
        accounts = accounts_create(s, args.students)
        asyncio.run(class_run(s.url, accounts, args.seconds, ramp))


if __name__ == "__main__":
    main()
