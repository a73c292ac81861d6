"""`./splaylab status` asks the web server where the running stack serves it (var/cli.json, written
by `up`), not where this shell's SPLAYLAB_PORT would put it."""
from __future__ import annotations

import http.server
import json
import os
import threading
from pathlib import Path

import pytest

from cli.stack import StackConfig, status


class _Unauthorized(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(401)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_status_checks_the_port_the_running_stack_serves(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("REDIS_URL", raising=False)
    server = http.server.HTTPServer(("127.0.0.1", 0), _Unauthorized)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        running = f"http://127.0.0.1:{server.server_port}"
        (tmp_path / "run").mkdir()
        (tmp_path / "run" / "web.pid").write_text(str(os.getpid()))  # a live process stands for web
        (tmp_path / "cli.json").write_text(json.dumps({"server": running, "token": "t"}))
        cfg = StackConfig(root=tmp_path, var=tmp_path, port=9)  # this shell's port: nothing there
        assert status(cfg) == 1  # the other parts are down
        web = [line for line in capsys.readouterr().out.splitlines() if " web " in line]
        assert web == [f"up    web       pid {os.getpid()}, answering at {running}/"]
    finally:
        server.shutdown()
