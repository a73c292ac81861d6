"""Populations past one host's ports (issue 21: a simulation of 100,000 nodes): the simulator
numbers nodes as a local run does (a loopback address and a port each, from port 20000) while
the ports last, 45,536 nodes, and beyond that places every node on a host of its own, 10.0.0.1
and up, port 20000 (docs/simulation.md, "Limits"). The run below lowers the threshold to 4 so that
a 6-node job takes the many-hosts form: the constant sizes the address plan, it stubs nothing."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

SANDBOX = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SANDBOX))
import simulate  # noqa: E402

# Every node serves rpc, calls every other node by the address job.nodes gives, and says who
# answered and what it calls itself.
APP = """
require "splay.base"
local rpc = require "splay.rpc"
function whoami() return job.position, job.me.ip, job.me.port end
rpc.server(job.me.port)
events.run(function()
  events.sleep(1)
  local answered = {}
  for i, n in ipairs(job.nodes) do
    local ok, r = rpc.acall(n, {"whoami"}, 5)
    answered[#answered + 1] = ok and (r[1] .. "@" .. r[2] .. ":" .. r[3]) or ("failed " .. tostring(r))
  end
  log.print("me " .. job.me.ip .. ":" .. job.me.port .. " answered " .. table.concat(answered, ","))
  events.sleep(1)
  events.exit()
end)
"""


def test_one_hosts_ports_then_a_host_per_node() -> None:
    small = simulate.node_addresses(simulate.LOOPBACK_NODES)
    assert small[0] == {"ip": "127.1.78.32", "port": 20000}
    assert small[-1] == {"ip": "127.1.255.255", "port": 65535}
    large = simulate.node_addresses(100_000)
    assert large[0] == {"ip": "10.0.0.1", "port": 20000}
    assert large[255] == {"ip": "10.0.1.0", "port": 20000}
    assert large[-1] == {"ip": "10.1.134.160", "port": 20000}   # 100,000 = 0x0186A0
    assert len({a["ip"] for a in large}) == 100_000


def test_a_job_on_many_hosts_reaches_every_node_by_its_address(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simulate, "LOOPBACK_NODES", 4)
    app = tmp_path / "app.lua"
    app.write_text(APP)
    logs: dict[int, str] = {}
    errors: list[str] = []

    def on_record(k: int, t: float, level: str, text: str) -> None:
        if level == "print" or level == "info":
            logs[k] = text
        elif level in ("error", "fatal"):
            errors.append(f"{k}: {text}")

    result = simulate.simulate(simulate.SimJob(app=app, nodes=6, time=10), on_record, None)
    assert result.code == 0 and not errors, (result.stderr, errors)
    everyone = ",".join(f"{i}@10.0.0.{i}:20000" for i in range(1, 7))
    assert logs == {k: f"me 10.0.0.{k}:20000 answered {everyone}" for k in range(1, 7)}, logs
