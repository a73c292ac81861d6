"""A database of its own for a benchmark that drives the ingest in-process: on DATABASE_URL's
server, else on the PostgreSQL this project starts under var/bench/ (port 54349)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "backend") not in sys.path:
    sys.path.insert(0, str(ROOT / "backend"))

from cli import services  # noqa: E402


def bench_database_url(name: str) -> str:
    """The URL of database `name`, created when missing."""
    url = os.environ.get("DATABASE_URL") or services.start_postgres(ROOT / "var" / "bench", 54349)
    base, _, _ = url.rpartition("/")
    found = subprocess.run(["psql", f"{base}/postgres", "-tAc", f"SELECT 1 FROM pg_database WHERE datname='{name}'"],
                           capture_output=True, text=True, check=True).stdout.strip()
    if found != "1":
        subprocess.run(["psql", f"{base}/postgres", "-qc", f"CREATE DATABASE {name}"], check=True)
    return f"{base}/{name}"
