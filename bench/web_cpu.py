"""The web tier's CPU per API request: one uvicorn process, a class's read mix, server CPU time.

`.venv/bin/python bench/web_cpu.py [--requests 3000] [--concurrency 8] [--port 8794]
[--handler wsgi|django-asgi]` starts one web process (`uvicorn splaylab.asgi:application
--workers 1`, SPLAYLAB_DB_POOL 8, as in the stack; `django-asgi`: Django's own ASGI handler
for HTTP instead, bench/django_asgi_entry.py, what the stack ran before) on a database of its own (bench_db: DATABASE_URL's server, else var/bench/), creates a
student with a workspace and a job, warms up, then sends REQUESTS reads, CONCURRENCY at a time,
cycling through bench/class_load.py's reads (workspace, job list, job, its logs). It prints
requests/s and the server's CPU time per request (user + system of the process and all its
threads, from /proc: what a class's reads cost the controller's cores, whatever the client
costs). Asserts nothing.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "backend"), str(ROOT / "bench")]

from bench_db import bench_database_url  # noqa: E402
from cli import services  # noqa: E402


def process_cpu(pid: int) -> float:
    """User + system seconds of the process, its threads (dead ones included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fixtures(env: dict[str, str]) -> tuple[str, list[str]]:
    """(a student's token, the read paths) in the bench database, through manage.py."""
    script = (
        "from accounts.models import User; from rest_framework.authtoken.models import Token; "
        "from workspaces.services import workspace_default_ensure; from jobs.models import Job; "
        "u, _ = User.objects.get_or_create(username='webcpu'); t, _ = Token.objects.get_or_create(user=u); "
        "w = workspace_default_ensure(user=u); "
        "j = Job.objects.filter(owner=u).first() or Job.objects.create(owner=u, code='print(1)', nodes=2, duration=20); "
        "print(t.key, w.id, j.id)")
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT / "backend", env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    token, ws, job = out[-3:]
    return token, [f"/api/workspaces/{ws}/", "/api/jobs/", f"/api/jobs/{job}/", f"/api/jobs/{job}/logs/?after=0&limit=200"]


async def drive(url: str, token: str, paths: list[str], requests: int, concurrency: int, pid: int,
                handler: str) -> None:
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Token {token}"}, timeout=30) as client:
        deadline = time.monotonic() + 60
        while True:
            try:
                await client.get(paths[1])
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)
        for _ in range(50):  # warm up: imports, pool, caches
            for path in paths:
                (await client.get(path)).raise_for_status()
        cpu0, t0 = process_cpu(pid), time.perf_counter()
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int) -> None:
            async with gate:
                (await client.get(paths[i % len(paths)])).raise_for_status()

        await asyncio.gather(*(one(i) for i in range(requests)))
        seconds, cpu = time.perf_counter() - t0, process_cpu(pid) - cpu0
    print(f"web CPU ({handler}): {requests} reads in {seconds:.2f} s = {requests / seconds:.0f} requests/s; "
          f"server CPU {1e3 * cpu / requests:.2f} ms per request ({cpu / seconds:.2f} cores)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--requests", type=int, default=3000)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--port", type=int, default=8794)
    p.add_argument("--handler", choices=("wsgi", "django-asgi"), default="wsgi")
    args = p.parse_args()
    with services.borrowed():
        env = {**os.environ, "DATABASE_URL": bench_database_url("splaylab_bench_webcpu"), "SPLAYLAB_DB_POOL": "8"}
        run(env, args)


def run(env: dict[str, str], args: argparse.Namespace) -> None:
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT / "backend", env=env,
                   check=True)
    token, paths = fixtures(env)
    app = "splaylab.asgi:application" if args.handler == "wsgi" else "django_asgi_entry:application"
    env = {**env, "PYTHONPATH": os.pathsep.join([str(ROOT / "bench"), env.get("PYTHONPATH", "")])}
    web = subprocess.Popen([str(ROOT / ".venv" / "bin" / "uvicorn"), app, "--port",
                            str(args.port), "--workers", "1", "--no-access-log"], cwd=ROOT / "backend", env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        asyncio.run(drive(f"http://127.0.0.1:{args.port}", token, paths, args.requests, args.concurrency, web.pid,
                          args.handler))
    finally:
        web.send_signal(signal.SIGINT)
        web.wait(30)


if __name__ == "__main__":
    main()
