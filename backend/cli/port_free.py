"""Whether `./splaylab up` can have its web port, asked before anything starts.

uvicorn finds a taken port only after PostgreSQL, Redis and the seeding have run, and `up` has by
then printed "SplayLab is up at ..."; its "Address already in use" ends in var/log/web.log and the
whole stack stops. A newcomer with something else on 8000 was left to guess; this says which port
and how to choose another."""
from __future__ import annotations

import errno
import socket


def port_problem(host: str, port: int) -> str | None:
    """None when host:port can be bound now, else why not and what to do."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        # As uvicorn binds: SO_REUSEADDR, so a port in TIME_WAIT after a previous `up` is free.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return (f"port {port} on {host} is already in use (another program, or another `make up`). "
                        f"Stop it, or choose another port: SPLAYLAB_PORT={port + 1} make up "
                        f"(or ./splaylab up --port {port + 1})")
            return f"cannot listen on {host}:{port}: {e.strerror}"
    return None
