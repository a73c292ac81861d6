"""Start a real PostgreSQL and a real Redis under a var/ folder, when no URL is given.

Used by `./splaylab up` (var/) and `make test` (var/test/). The servers come from Debian's
packages (postgresql, redis-server). PostgreSQL refuses to run as root, so as root the data
folder belongs to the `postgres` system user and the server runs as that user.

Stopping waits for the server to be gone (bounded, then it is killed): a caller that deletes
the folder next (a test's throwaway var/) would otherwise pull it from under a Redis still
writing its final snapshot, and that Redis then refuses to exit. Redis servers started for
tests only (`persist=False`: the command line's, used by `make test`, and the benchmarks')
keep no snapshot at all.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ServicePorts:
    postgres: int = 54329
    redis: int = 63790


def _pg_bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not candidates:
        raise RuntimeError(f"PostgreSQL's {name} not found: install the 'postgresql' package (make deps)")
    return candidates[-1]


def _as_pg_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "postgres", "--", *cmd]


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _wait_port(port: int, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _port_open(port):
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not start listening on 127.0.0.1:{port} within {timeout:.0f} s")


def start_postgres(var: Path, port: int) -> str:
    """Ensure a PostgreSQL cluster in var/postgres is running; return its DATABASE_URL."""
    url = f"postgres://splaylab@127.0.0.1:{port}/splaylab"
    data = var / "postgres"
    log = var / "log" / "postgres.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    if _port_open(port):
        return url
    if not (data / "PG_VERSION").exists():
        data.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(data, "postgres", "postgres")
            os.chmod(data, 0o700)
        subprocess.run(
            _as_pg_user([_pg_bin("initdb"), "-D", str(data), "-U", "splaylab", "--auth=trust",
                         "--encoding=UTF8", "--no-instructions"]),
            check=True, stdout=subprocess.DEVNULL,
        )
    if os.geteuid() == 0:
        log.touch()
        shutil.chown(log, "postgres", "postgres")
    sockdir = "/tmp"
    subprocess.run(
        _as_pg_user([_pg_bin("pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60",
                     "-o", f"-p {port} -k {sockdir} -c listen_addresses=127.0.0.1 "
                           "-c fsync=off -c max_connections=200", "start"]),
        check=True, stdout=subprocess.DEVNULL,
    )
    _wait_port(port, "PostgreSQL")
    exists = subprocess.run(
        [_pg_bin("psql"), "-h", "127.0.0.1", "-p", str(port), "-U", "splaylab", "-d", "postgres",
         "-tAc", "SELECT 1 FROM pg_database WHERE datname='splaylab'"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    if exists != "1":
        subprocess.run([_pg_bin("createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "splaylab",
                        "splaylab"], check=True)
    return url


STOP_TIMEOUT = 20  # seconds a server gets to stop cleanly before it is stopped hard


def stop_postgres(var: Path) -> None:
    """A fast shutdown (pg_ctl waits for it); if that does not end within STOP_TIMEOUT, an
    immediate one (no checkpoint, crash recovery at the next start: fine for a stop that
    must not leave a server behind)."""
    data = var / "postgres"
    if not (data / "postmaster.pid").exists():
        return
    for mode in ("fast", "immediate"):
        done = subprocess.run(
            _as_pg_user([_pg_bin("pg_ctl"), "-D", str(data), "-m", mode, "-w", "-t", str(STOP_TIMEOUT), "stop"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if done.returncode == 0 or not (data / "postmaster.pid").exists():
            return


def start_redis(var: Path, port: int, persist: bool = True) -> str:
    """Ensure a Redis server with its files in var/redis is running; return its REDIS_URL.
    `persist=False`: no snapshot, no append-only file (a server for tests only)."""
    url = f"redis://127.0.0.1:{port}/0"
    if _port_open(port):
        return url
    data = var / "redis"
    data.mkdir(parents=True, exist_ok=True)
    (var / "log").mkdir(parents=True, exist_ok=True)
    redis = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not os.path.exists(redis):
        raise RuntimeError("redis-server not found: install the 'redis-server' package (make deps)")
    subprocess.run(
        [redis, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data),
         "--daemonize", "yes", "--pidfile", str(data / "redis.pid"),
         "--logfile", str(var / "log" / "redis.log"),
         *(["--save", "60 1000"] if persist else ["--save", "", "--appendonly", "no"])],
        check=True,
    )
    _wait_port(port, "Redis")
    return url


def _is_redis(pid: int) -> bool:
    """`pid` is still a redis-server (not a pid reused since the pidfile was written)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"redis-server" in f.read()
    except OSError:
        return False


def _gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _is_redis(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def stop_redis(var: Path) -> None:
    """SIGTERM (Redis saves its snapshot if it keeps one, then exits), wait until it is gone;
    SIGKILL after STOP_TIMEOUT."""
    pidfile = var / "redis" / "redis.pid"
    try:
        pid = int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return
    if not _is_redis(pid):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    if not _gone(pid, STOP_TIMEOUT):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        _gone(pid, 5.0)


def ensure_services(var: Path, ports: ServicePorts = ServicePorts(), persist: bool = True) -> dict[str, str]:
    """Return the environment (DATABASE_URL, REDIS_URL), starting local servers for what is unset
    (`persist=False`: a Redis that keeps no snapshot, for tests)."""
    env: dict[str, str] = {}
    env["DATABASE_URL"] = os.environ.get("DATABASE_URL") or start_postgres(var, ports.postgres)
    env["REDIS_URL"] = os.environ.get("REDIS_URL") or start_redis(var, ports.redis, persist=persist)
    return env


BENCH_VAR = Path(__file__).resolve().parents[2] / "var" / "bench"
BENCH_PORTS = ServicePorts(54349, 63809)


@contextmanager
def borrowed(var: Path = BENCH_VAR, ports: ServicePorts = BENCH_PORTS) -> Iterator[None]:
    """DATABASE_URL / REDIS_URL in os.environ for the block: the given ones, else servers
    started under `var`, stopped again on the way out (the benchmarks' way)."""
    started_here = {name: not os.environ.get(name) for name in ("DATABASE_URL", "REDIS_URL")}
    os.environ.update(ensure_services(var, ports, persist=False))
    try:
        yield
    finally:
        if started_here["DATABASE_URL"]:
            stop_postgres(var)
        if started_here["REDIS_URL"]:
            stop_redis(var)


def stop_services(var: Path) -> None:
    if not os.environ.get("DATABASE_URL"):
        stop_postgres(var)
    if not os.environ.get("REDIS_URL"):
        stop_redis(var)


def main(argv: list[str]) -> None:
    """`python services.py start|stop VAR [PG_PORT REDIS_PORT]`; start prints shell exports.
    Used for tests (`make test`'s var/test/, a helper's unit tests): its Redis keeps no
    snapshot. `./splaylab up` starts its servers through stack.py instead, with snapshots."""
    if len(argv) not in (2, 4) or argv[0] not in ("start", "stop"):
        raise SystemExit("usage: services.py start|stop VAR [PG_PORT REDIS_PORT]"
                         + (f" (not {argv[0]!r})" if argv and argv[0] not in ("start", "stop") else ""))
    action, var = argv[0], Path(argv[1]).resolve()
    ports = ServicePorts(int(argv[2]), int(argv[3])) if len(argv) > 3 else ServicePorts()
    if action == "stop":
        stop_services(var)
        return
    for key, value in ensure_services(var, ports, persist=False).items():
        print(f"export {key}={value}")


if __name__ == "__main__":
    import sys
    main(sys.argv[1:])
