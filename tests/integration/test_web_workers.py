"""Several web processes behind one port (backend/cli/stack.py, SPLAYLAB_WEB_WORKERS): a job
submitted through one process is scheduled through the channel layer to a daemon whose socket
another process may hold, and every live view, whichever process accepted it, gets the job's
lines; the web processes reuse pooled database connections (SPLAYLAB_DB_POOL).

Runs the real stack (under `flock /tmp/splaylab-stack.lock`, like every stack test)."""
from __future__ import annotations

import asyncio
import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from stack_helpers import running_stack

WEB_WORKERS_PORT = 8785

pytestmark = pytest.mark.stack

# Prints until stopped: a live view carries no history (the page pages that in over REST), so a
# viewer that subscribes after the first lines must still get a run of lines from both nodes.
APP = """require "splay.base"
events.run(function()
  for i = 1, 150 do print("line " .. job.position .. " " .. i); events.sleep(0.2) end
end)
"""
VIEWERS = 8
LINES_PER_NODE = 5


def web_workers(web_pid: int) -> list[int]:
    """The uvicorn worker processes under the web part (its children running the server)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        if ppid == web_pid and b"multiprocessing" in cmdline and b"spawn_main" in cmdline:
            out.append(int(entry))
    return out


def browser_session(s) -> str:
    """Log in as the browser does (session + CSRF); the Cookie header for the websocket."""
    import http.cookiejar
    import urllib.request

    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(s.url + "/api/auth/me/")   # 204 for no one signed in, with the csrftoken cookie
    csrf = next(c.value for c in jar if c.name == "csrftoken")
    opener.open(urllib.request.Request(
        s.url + "/api/auth/login/", method="POST",
        data=json.dumps({"username": "student", "password": "student-demo"}).encode(),
        headers={"Content-Type": "application/json", "X-CSRFToken": csrf, "Referer": s.url + "/"}))
    return "; ".join(f"{c.name}={c.value}" for c in jar)


async def watch(url: str, cookie: str, job_id: int) -> dict[int, list[int]]:
    """The line numbers this viewer got from each node, in order of arrival, once it has
    LINES_PER_NODE from both."""
    import websockets

    seen: dict[int, list[int]] = {1: [], 2: []}
    async with websockets.connect(url.replace("http", "ws", 1) + f"/ws/jobs/{job_id}/",
                                  additional_headers={"Cookie": cookie, "Origin": url}) as ws:
        while min(len(numbers) for numbers in seen.values()) < LINES_PER_NODE:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
            if msg["type"] == "log.lines":
                for ln in msg["lines"]:
                    if ln["text"].startswith("line "):
                        _, position, number = ln["text"].split()
                        seen[int(position)].append(int(number))
    return seen


def test_web_processes_share_daemons_groups_and_pooled_connections(tmp_path: Path) -> None:
    import psycopg

    # a port and Redis db of its own: the session's stack (tests/conftest.py) holds STACK_PORT meanwhile
    with running_stack(tmp_path, WEB_WORKERS_PORT, "splaylab_it_web_workers", 14, daemons=1,
                       extra_env={"SPLAYLAB_WEB_WORKERS": "2", "SPLAYLAB_DB_POOL": "3"}) as s:
        assert len(web_workers(s.handle.children["web"].pid)) == 2
        cookie = browser_session(s)
        job = s.api("POST", "/api/jobs/", {"code": APP, "nodes": 2, "duration": 30})

        async def viewers() -> list[dict[int, list[int]]]:
            return await asyncio.gather(*(watch(s.url, cookie, job["id"]) for _ in range(VIEWERS)))

        # in a thread of its own: in the full suite the browser tests' Playwright keeps an event
        # loop running in the main thread, where asyncio.run would refuse to start another
        with ThreadPoolExecutor(1) as pool:
            seen = pool.submit(asyncio.run, viewers()).result()
        for view in seen:  # every view, whichever process holds it: both nodes' lines, none missed
            for numbers in view.values():
                assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), view
        s.api("POST", f"/api/jobs/{job['id']}/stop/")
        assert s.wait_job(job["id"], {"ENDED", "KILLED", "FAILED"})["state"] == "KILLED"
        for _ in range(30):
            s.api("GET", "/api/jobs/")
        with psycopg.connect(s.env["DATABASE_URL"]) as conn:
            backends = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                    "AND pid <> pg_backend_pid()").fetchone()[0]
        # 2 processes x a pool of 3, plus Celery and beat: never a connection per request
        assert backends <= 2 * 3 + 6, backends
