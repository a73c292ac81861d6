"""Isolation between simulated nodes (docs/simulation.md): every node of a simulated job runs in
one LuaJIT process, so a node's program tries here everything that would reach the others
without a message — globals, the standard tables, the string metatable, the runtime's modules,
the random generator, the job table — and the other nodes must see none of it.

Runs sandbox/run_local.py --sim (the real simulator under bubblewrap)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

HOSTILE = r'''
require "splay.base"
local rpc = require "splay.rpc"
local HOSTILE = %s
-- node 1 sabotages its own tables: its own loop keeps what it needs first
local run, sleep, server, exit, call = events.run, events.sleep, rpc.server, events.exit, rpc.call

local function attack()
  shared_global = "from node 1"
  rawset(_G, "raw_global", "from node 1")
  setmetatable(_G, { __index = function() return "pwned" end })
  string.upper = function() return "pwned" end
  string.rep = nil
  table.insert = function() error("pwned table.insert") end
  table.concat = function() return "pwned" end
  math.randomseed(42)
  for _ = 1, 1000 do math.random() end
  math.random = function() return 4 end
  math.floor = function() return -1 end
  os.time = function() return 0 end
  coroutine.wrap = function() error("pwned coroutine.wrap") end
  events.periodic = function() error("pwned events.periodic") end
  events.fire = function() error("pwned events.fire") end
  rpc.call = function() return "pwned" end
  -- splay.rpc's functions are one set for every simulated node: each must still read its own
  -- node's settings (the app's rpc table is a copy of the runtime's, its settings the same table;
  -- a dispatch replaced here stays in the copy: node 1 answers the others' "ping" as before)
  rpc.settings.default_timeout = 0
  rpc.settings.keep_alive = 0
  rpc.dispatch = function(c) return { ok = true, r = { c[2] == "ping" and "ping" or "pwned" }, n = 1 } end
  misc.dup = function() return "pwned" end
  job.nodes[2].port = 1
  job.me.ip = "6.6.6.6"
  log.print = function() end
  -- the string metatable is not handed out; if it were, poison it
  local mt = getmetatable("")
  if mt then mt.__index = function() return "pwned" end end
  pcall(function() debug.getmetatable("").__index = function() return "pwned" end end)
  pcall(function() debug.setmetatable("", { __index = function() return "pwned" end }) end)
  -- methods on strings use this node's own string table
  assert(("abc"):upper() == "pwned", "own string table not used by methods")
end

local function report(when)
  local t = {}
  table.insert(t, "x")
  log.print(when .. " globals=" .. tostring(shared_global) .. "," .. tostring(raw_global) .. ","
    .. tostring(undefined_name))
  log.print(when .. " strings=" .. ("abc"):upper() .. "," .. string.upper("abc") .. "," .. ("ab"):rep(2)
    .. "," .. table.concat(t, "+"))
  log.print(when .. " random=" .. math.random(1000000) .. "," .. math.random(1000000) .. "," .. math.floor(2.5))
  log.print(when .. " clock=" .. tostring(os.time() > 1700000000) .. "," .. type(coroutine.wrap(function() end))
    .. "," .. events.fire("nobody"))
  log.print(when .. " job=" .. job.nodes[2].port .. "," .. job.me.ip .. " rpc=" .. tostring(rpc.call == nil))
end

if job.position == 1 and HOSTILE then attack() end
if job.position ~= 1 then report("start") end
run(function()
  server(job.me.port)
  sleep(1)
  if job.position ~= 1 then
    local answer = call(job.nodes[1], { "tostring", "ping" })
    log.print("after rpc=" .. tostring(answer))
    -- 2 -> 3 -> 4 -> 2: served and timed by nodes node 1 never touched
    local peer = job.position == 4 and 2 or job.position + 1
    log.print("peer rpc=" .. tostring(call(job.nodes[peer], { "tostring", "peer" })))
    report("later")
  end
  sleep(1)
  exit()
end)
'''


def simulate(tmp_path: Path, hostile: bool) -> list[dict[str, Any]]:
    app = tmp_path / ("hostile.lua" if hostile else "benign.lua")
    app.write_text(HOSTILE % ("true" if hostile else "false"))
    out = tmp_path / (app.stem + ".jsonl")
    proc = subprocess.run([sys.executable, str(ROOT / "sandbox" / "run_local.py"), str(app), "--sim",
                           "--nodes", "4", "--time", "5", "--seed", "3", "--out", str(out), "--quiet"],
                          capture_output=True, text=True, timeout=60)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert proc.returncode == 0, (proc.stderr, records)
    return records


def reports(records: list[dict[str, Any]]) -> dict[int, list[str]]:
    seen: dict[int, list[str]] = {}
    for r in records:
        if r["kind"] == "log" and r["node"] != 1:
            seen.setdefault(r["node"], []).append(r["text"])
    return seen


def test_a_hostile_node_changes_nothing_the_other_simulated_nodes_see(tmp_path: Path) -> None:
    attacked = simulate(tmp_path, hostile=True)
    errors = [r for r in attacked if r["kind"] == "log" and r["level"] == "error"]
    assert errors == []
    seen = reports(attacked)
    assert set(seen) == {2, 3, 4}
    for node, lines in seen.items():
        assert len(lines) == 12, (node, lines)
        assert not any("pwned" in line for line in lines), (node, lines)
        for when in ("start", "later"):
            assert f"{when} globals=nil,nil,nil" in lines
            assert f"{when} strings=ABC,ABC,abab,x" in lines
            assert f"{when} clock=true,function,0" in lines
            # each node's own address (sandbox/node_address.py: 127.1.<port // 256>.<port % 256>)
            assert f"{when} job=20001,127.1.78.{31 + node} rpc=false" in lines
        assert "after rpc=ping" in lines   # node 1 is still reachable by messages
        assert "peer rpc=peer" in lines


def test_a_hostile_node_does_not_change_the_random_draws_of_the_others(tmp_path: Path) -> None:
    attacked, quiet = reports(simulate(tmp_path, hostile=True)), reports(simulate(tmp_path, hostile=False))
    for node in (2, 3, 4):
        draws = [line for line in attacked[node] if "random=" in line]
        assert len(draws) == 2
        assert draws == [line for line in quiet[node] if "random=" in line]
    # and the nodes draw differently from each other
    assert len({tuple(line for line in attacked[n] if "random=" in line) for n in (2, 3, 4)}) == 3
