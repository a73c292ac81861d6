"""A node's server reopens on its port at once after it served a connection, live as in the
simulator: the side that closes first keeps that connection in TIME_WAIT for a minute, and a
node rejoining under churn binds the same port again. LuaSocket's socket.tcp() made a socket
without a family, on which the runtime's reuseaddr was silently dropped (splaylab.platform)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SANDBOX = Path(__file__).resolve().parent.parent

APP = """\
require "splay.base"
events.run(function()
  if job.position == 1 then
    local srv = assert(socket.bind("*", job.me.port))
    srv:settimeout(5)
    local c = assert(srv:accept())
    c:close()         -- this side closes first: its end waits in TIME_WAIT
    srv:close()
    events.sleep(0.2)
    local again, err = socket.bind("*", job.me.port)
    print("reopened", again and "yes" or err)
  else
    for _ = 1, 100 do
      local c = socket.connect(job.nodes[1].ip, job.nodes[1].port)
      if c then c:receive("*a"); c:close(); return end
      events.sleep(0.05)
    end
    print("no connection")
  end
end)
"""


@pytest.mark.parametrize("mode", ["live", "sim"])
def test_a_server_reopens_on_its_port_right_after_serving_a_connection(tmp_path: Path, mode: str) -> None:
    app = tmp_path / "app.lua"
    app.write_text(APP)
    out = tmp_path / "out.jsonl"
    proc = subprocess.run([sys.executable, str(SANDBOX / "run_local.py"), str(app), "--nodes", "2", "--time", "10",
                           "--out", str(out), "--quiet"] + (["--sim"] if mode == "sim" else []),
                          capture_output=True, text=True, timeout=70)
    assert proc.returncode == 0, proc.stderr
    lines = [(r["node"], r["text"]) for r in map(json.loads, out.read_text().splitlines()) if r["kind"] == "log"]
    assert lines == [(1, "reopened\tyes")]
