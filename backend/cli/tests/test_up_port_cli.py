"""`./splaylab up` on a web port something else holds: it says so and how to choose another port,
at once, before starting PostgreSQL or writing var/ (it used to start everything, print "SplayLab
is up at ...", then stop when uvicorn met "Address already in use", reported in var/log/web.log)."""
from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from cli.port_free import port_problem

ROOT = Path(__file__).resolve().parents[3]


def held_port() -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s


def test_up_on_a_taken_port_stops_at_once_and_says_how_to_choose_another(tmp_path: Path) -> None:
    with held_port() as taken:
        port = taken.getsockname()[1]
        var = tmp_path / "var"
        proc = subprocess.run([sys.executable, str(ROOT / "splaylab"), "up", "--port", str(port), "--var", str(var)],
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (f"splaylab up: port {port} on 127.0.0.1 is already in use (another program, or another "
                           f"`make up`). Stop it, or choose another port: SPLAYLAB_PORT={port + 1} make up "
                           f"(or ./splaylab up --port {port + 1})\n")
    assert not var.exists()  # nothing started: no database, no logs


def test_a_free_port_and_one_just_released_are_no_problem() -> None:
    with held_port() as s:
        port = s.getsockname()[1]
    assert port_problem("127.0.0.1", port) is None
