"""backend/cli/services.py: stopping a server waits until it is gone, so the caller may delete
its folder next (tests/integration/test_daemon_freeze.py does) without leaving a server behind;
Redis servers started for tests keep no snapshot.

The servers run under the repository's var/ (as root, PostgreSQL runs as the postgres user,
and pytest's temporary folders are private to root)."""
from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from cli import services

ROOT = Path(__file__).resolve().parents[3]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", "rb") as f:  # a zombie is gone for our purpose
        return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"


@pytest.fixture
def var() -> Iterator[Path]:
    path = ROOT / "var" / f"test-services-stop-{os.getpid()}"
    yield path
    services.stop_redis(path)
    services.stop_postgres(path)
    shutil.rmtree(path, ignore_errors=True)


def test_a_throwaway_redis_keeps_no_snapshot_and_is_gone_when_stop_returns(var: Path) -> None:
    port = _free_port()
    url = services.start_redis(var, port, persist=False)
    client = redis.Redis.from_url(url)
    assert client.config_get("save") == {"save": ""}
    assert client.config_get("appendonly") == {"appendonly": "no"}
    client.set("k", "v")
    client.close()
    pid = int((var / "redis" / "redis.pid").read_text())
    services.stop_redis(var)
    assert not _alive(pid)
    assert not services._port_open(port)
    assert not (var / "redis" / "dump.rdb").exists()


def test_a_persistent_redis_has_saved_its_snapshot_when_stop_returns(var: Path) -> None:
    """`./splaylab up`'s Redis: its final save is written before stop returns, so deleting
    the folder right after cannot make it refuse to exit."""
    url = services.start_redis(var, _free_port())
    client = redis.Redis.from_url(url)
    assert client.config_get("save") == {"save": "60 1000"}
    client.set("k", "v")
    client.close()
    pid = int((var / "redis" / "redis.pid").read_text())
    services.stop_redis(var)
    assert not _alive(pid)
    assert (var / "redis" / "dump.rdb").exists()
    shutil.rmtree(var / "redis")
    assert not _alive(pid)


def test_postgresql_is_gone_when_stop_returns(var: Path) -> None:
    port = _free_port()
    services.start_postgres(var, port)
    pid = int((var / "postgres" / "postmaster.pid").read_text().split()[0])
    services.stop_postgres(var)
    assert not _alive(pid)
    assert not services._port_open(port)
    assert not (var / "postgres" / "postmaster.pid").exists()
