"""The emulated network through the whole service: `./splaylab submit --net ...` → the API
stores the choice → each daemon compiles its instances' `net` blocks (sandbox/netmodel.py) →
splay.socket delays the messages (docs/network.md)."""
from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest

pytestmark = pytest.mark.stack

# Node 1 serves; the others call it with their send time: all daemons of the test stack run
# on this machine, one clock, so node 1 measures the one-way delay itself.
ONE_WAY_APP = """
require "splay.base"
local rpc = require "splay.rpc"
function owd(sent) return misc.time() - sent end
rpc.server(job.me.port)
events.run(function()
  if job.position == 1 then events.sleep(8); events.exit() end
  events.sleep(1)
  for i = 1, 15 do
    local d = rpc.call(job.nodes[1], {"owd", misc.time()})
    print(string.format("owd %.6f", d))
    events.sleep(0.05)
  end
  events.exit()
end)
"""


def test_a_constant_delay_reaches_the_nodes_of_a_submitted_job(stack, tmp_path: Path) -> None:
    app = tmp_path / "owd.lua"
    app.write_text(ONE_WAY_APP)

    result = stack.cli("submit", str(app), "--nodes", "4", "--time", "20", "--net", "const:40ms", "--follow")

    assert result.returncode == 0, result.stderr
    assert "network const:40ms" in result.stderr
    samples = [float(m.group(1)) for m in re.finditer(r"owd (\d+\.\d+)", result.stdout)]
    assert len(samples) == 45, result.stdout   # 3 callers x 15 calls, none lost
    assert abs(statistics.median(samples) - 0.040) / 0.040 <= 0.05, samples


def test_a_bad_network_is_refused_with_the_reason(stack, tmp_path: Path) -> None:
    app = tmp_path / "app.lua"
    app.write_text("print(1)\n")

    result = stack.cli("submit", str(app), "--nodes", "2", "--net", "jitter:50ms")

    assert result.returncode == 2
    assert "jitter needs a mean and a deviation: jitter:50ms:10ms (one-way)" in result.stderr
