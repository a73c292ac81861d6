"""Start the real SplayLab stack for cross-component tests.

`running_stack` uses the PostgreSQL and Redis of `make test` (DATABASE_URL / REDIS_URL), a fresh
database, then web (uvicorn), Celery worker and beat, and N splayd daemons: the same code path
as `./splaylab up` (backend/cli/stack.py).
"""
from __future__ import annotations

import json
import os
import signal
import ssl
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "backend"))

from cli import stack as stack_mod  # noqa: E402

STACK_PORT = 8765
# Debian's chromium, headless, as the browser tests and the UI benchmarks start it
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@dataclass
class RunningStack:
    url: str
    var: Path
    env: dict[str, str]
    student_token: str
    teacher_token: str
    handle: stack_mod.Stack
    cfg: stack_mod.StackConfig

    def api(self, method: str, path: str, body: dict | None = None, token: str | None = None):
        req = urllib.request.Request(self.url + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
        req.add_header("Authorization", f"Token {token or self.student_token}")
        req.add_header("Content-Type", "application/json")
        context = ssl.create_default_context(cafile=self.cfg.tls_cert) if self.cfg.tls_cert else None
        with urllib.request.urlopen(req, timeout=30, context=context) as resp:
            return json.loads(resp.read() or b"null")

    def wait_job(self, job_id: int, states: set[str], timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        job = {}
        while time.monotonic() < deadline:
            job = self.api("GET", f"/api/jobs/{job_id}/")
            if job["state"] in states:
                return job
            time.sleep(0.2)
        raise AssertionError(f"job {job_id} did not reach {states} in {timeout} s: {job}")

    def cli(self, *args: str, timeout: float = 120, token: str | None = None) -> subprocess.CompletedProcess:
        env = dict(os.environ, SPLAYLAB_SERVER=self.url, SPLAYLAB_TOKEN=token or self.student_token)
        return subprocess.run([str(ROOT / "splaylab"), *args], cwd=ROOT, env=env, text=True,
                              capture_output=True, timeout=timeout)

    def logs(self, job_id: int, node: int | None = None) -> list[dict]:
        """Every stored log line of a job (or of one node), paging through the API."""
        lines: list[dict] = []
        after = 0
        while True:
            query = f"after={after}&limit=1000" + (f"&node={node}" if node is not None else "")
            page = self.api("GET", f"/api/jobs/{job_id}/logs/?{query}")
            if not page["lines"]:
                return lines
            lines += page["lines"]
            after = page["next_after"]

    def restart(self, part: str, down_for: float, sig: int = signal.SIGKILL) -> None:
        """Kill one process of the stack (SIGKILL: a crash, nothing cleaned up), leave it down
        for `down_for` seconds, then start it again as the stack did."""
        proc = self.handle.children[part]
        os.killpg(proc.pid, sig)
        proc.wait(15)
        time.sleep(down_for)
        argv, cwd = stack_mod.commands(self.cfg, sorted((self.var / "daemons").glob("lab-*.toml")), self.env)[part]
        log = open(self.var / "log" / f"{part}.log", "ab")
        self.handle.children[part] = subprocess.Popen(argv, cwd=cwd, env=stack_mod.part_env(part, self.env), stdout=log,
                                                      stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                      start_new_session=True)
        if part == "web":
            stack_mod.wait_http(self.url + "/api/auth/me/", 60, self.cfg.tls_cert or None)

    def manage(self, *args: str) -> str:
        return stack_mod.manage(self.cfg, self.env, *args, capture=True)

    def user_create(self, username: str) -> str:
        """A new plain (student) account with password "pw-USERNAME"; returns its API token."""
        return self.manage("shell", "-c", (
            "from accounts.models import User; from rest_framework.authtoken.models import Token; "
            f"u = User.objects.create_user({username!r}, password='pw-{username}'); "
            "print(Token.objects.create(user=u).key)")).strip().splitlines()[-1]


def _fresh_database(base_url: str, name: str) -> str:
    parts = urlsplit(base_url)
    admin = urlunsplit(parts._replace(path="/postgres"))
    import psycopg
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path=f"/{name}"))


@contextmanager
def running_stack(tmp: Path, port: int, db_name: str, redis_db: int, daemons: int = 2,
                  max_instances: int = 100, extra_env: dict[str, str] | None = None,
                  print_logs: bool = True, daemon_config: str = "",
                  host: str = "127.0.0.1", tls: tuple[Path, Path] | None = None) -> Iterator[RunningStack]:
    """Start web, worker, sim (the simulation worker), beat and `daemons` splayd on `port`, over a fresh database.

    `daemons` may be 0 (the caller starts its own, e.g. tests/multihost); `host` is the address
    web binds and the daemons' `controller` URL names (tests/multihost: the bridge's 10.77.0.1);
    `tls` = (certificate, key): web serves https/wss and the daemons verify that certificate."""
    if not os.environ.get("DATABASE_URL") or not os.environ.get("REDIS_URL"):
        pytest.fail("run the suite with `make test`: it provides DATABASE_URL and REDIS_URL")
    cfg = stack_mod.StackConfig(root=ROOT, var=tmp, host=host, port=port, daemons=daemons,
                                daemon_max_instances=max_instances,
                                tls_cert=str(tls[0]) if tls else "", tls_key=str(tls[1]) if tls else "",
                                tls_ca="")
    env = dict(os.environ)
    env["DATABASE_URL"] = _fresh_database(os.environ["DATABASE_URL"], db_name)
    env["REDIS_URL"] = os.environ["REDIS_URL"].rsplit("/", 1)[0] + f"/{redis_db}"
    env["SPLAYLAB_SECRET_KEY"] = "integration-tests"
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra_env or {})
    env.pop("DJANGO_SETTINGS_MODULE", None)
    subprocess.run(["redis-cli", "-u", env["REDIS_URL"], "FLUSHDB"], check=True, capture_output=True)
    configs = stack_mod.prepare(cfg, env)
    for conf in configs:  # extra splayd settings, e.g. a benchmark's log rate
        conf.write_text(conf.read_text() + daemon_config)
    handle = stack_mod.Stack(cfg)
    try:
        handle.start(env, configs)
        stack_mod.wait_http(cfg.url + "/api/auth/me/", 60, cfg.tls_ca or cfg.tls_cert or None)
        student = json.loads((tmp / "cli.json").read_text())["token"]
        teacher = stack_mod.manage(cfg, env, "user_token", "teacher", capture=True).splitlines()[-1]
        running = RunningStack(cfg.url, tmp, env, student, teacher, handle, cfg)
        _wait_daemons_online(running, len(configs))
        yield running
    finally:
        handle.stop()
        for log in sorted((tmp / "log").glob("*.log")) if print_logs else ():
            # Shown only when a test failed (pytest prints captured output then).
            print(f"----- {log.name} (tail)\n{log.read_text(errors='replace')[-3000:]}")


def _wait_daemons_online(s: RunningStack, count: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    daemons = []
    while time.monotonic() < deadline:
        daemons = s.api("GET", "/api/daemons/", token=s.teacher_token)
        if sum(1 for d in daemons if d["state"] == "ONLINE") >= count:
            return
        time.sleep(0.3)
    raise AssertionError(f"daemons did not come ONLINE within {timeout} s: {daemons}")
