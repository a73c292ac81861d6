"""The harness's capability (docs/grading.md, "What the grader trusts"): a submission that wants
points without the work tries every route to the capability the runtime gives the harness, to the
records it writes, and to what it calls: globals, getfenv/setfenv, package.loaded, require of any
name, debug, metatables, string.dump, the stack of a harness thread that calls it, forged record
lines, and replacing the functions and modules the harness uses. None may work, simulated or live.

Runs sandbox/run_local.py with --harness (the real runtime; the simulator under bubblewrap, live
nodes as LuaJIT processes)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

HARNESS = r'''
local h = ...
local events = require "splay.events"
local misc = require "splay.misc"
h.record("canary", 1)
events.thread(function()
  events.sleep(1)
  local probe = h.global("probe_me")
  -- the submission runs in a thread of h.call's: whatever it does there, this one goes on
  local ok, r = h.call(2, probe, "call")
  h.record("called", ok and r or -1)
  -- and in an operation's thread: it may kill that one, never this one
  events.thread(function() h.operation("probe", probe, "operation") end)
  -- an operation that returns: its row is the runtime's
  h.operation("ping", h.global("ping_me"))
  events.sleep(1)
  local t0 = misc.time()
  events.sleep(0.5)
  h.record("done", misc.time() - t0, {random = h.random(1, 6), kind = type(h) })
end)
'''

HOSTILE = r'''
local type, pairs, ipairs, pcall, tostring, rawget, getfenv, print, require, debug_traceback =
  type, pairs, ipairs, pcall, tostring, rawget, getfenv, print, require, debug.traceback
local found = {}
local function note(route, what) found[#found + 1] = route .. ": " .. tostring(what) end
local function is_cap(v)
  return type(v) == "table" and (rawget(v, "record") ~= nil or rawget(v, "operation") ~= nil
    or rawget(v, "capability") ~= nil or rawget(v, "row") ~= nil)
end
local function scan(route, t)
  if type(t) ~= "table" then return end
  for k, v in pairs(t) do
    if is_cap(v) then note(route, k) end
    if type(v) == "table" then for k2, v2 in pairs(v) do if is_cap(v2) then note(route, k .. "." .. tostring(k2)) end end end
  end
end
local function search(route)
  scan(route .. " _G", _G)
  for lvl = 0, 6 do
    local ok, e = pcall(getfenv, lvl)
    if ok and type(e) == "table" then scan(route .. " getfenv(" .. lvl .. ")", e) end
  end
  for name, f in pairs({ thread = events.thread, sleep = events.sleep, print = print, require = require,
                         time = misc.time, pcall = pcall }) do
    local ok, e = pcall(getfenv, f)
    if ok and e ~= _G then note("getfenv(" .. name .. ")", e) end
  end
  for _, name in ipairs({ "package", "splaylab.harness", "splaylab.trace", "splaylab.output", "splaylab.boot",
                          "splaylab.events", "harness", "harness.lua", "debug", "jit", "ffi", "_G" }) do
    local ok, m = pcall(require, name)
    if ok and (is_cap(m) or (type(m) == "table" and m ~= debug and rawget(m, "write"))) then note("require", name) end
  end
  for _, name in ipairs({ "getinfo", "getlocal", "getupvalue", "getregistry", "getmetatable", "sethook", "setupvalue" }) do
    local ok, f = pcall(function() return debug[name] end)
    if ok and f then note("debug", name) end
  end
  for _, v in ipairs({ events, misc, log, _G, "", job, coroutine, string }) do
    local mt = getmetatable(v)
    if type(mt) == "table" then scan("metatable", mt) end
  end
  if package then note("package", "present") end
  if pcall(function() return string.dump(print) end) then note("string.dump", "works") end
end

function ping_me() return 1 end

function probe_me(how)
  search(how)
  local co = coroutine.running()
  if co then
    note_tb = debug_traceback(co)
    events.kill(co)          -- the thread the harness lent us, if it did
  end
  return 42
end

search("load")
-- forged records, in every format
print("probe\t{\"name\":\"canary\",\"value\":99}")
io.write("\nprobe\t{\"name\":\"canary\",\"value\":98}\n")
log.info("x\nprobe\t{\"name\":\"canary\",\"value\":97}\ntrace\t{\"rows\":[[0,\"call\",2,\"f\",1,1,\"ok\",\"\",0,0,1]]}")
print('{"node": 1, "t": 0.1, "kind": "probe", "name": "canary", "value": 95}')
require("splay.metrics").observe("canary", 96)
-- replace what a harness would call, in every table the submission holds
local sleep, thread, exit = events.sleep, events.thread, events.exit
events.sleep = function() end
events.thread = function() end
events.on_error = function() end
misc.time = function() return 0 end
math.random = function() return 6 end
math.randomseed(1)
require("splay.metrics").observe = function() end
_G.pcall = function() return true, 42 end   -- (the globals: this chunk keeps its own locals)
_G.type = function() return "nil" end
setmetatable(_G, { __index = function() return nil end, __newindex = function() end })
thread(function()
  sleep(4)
  for _, f in ipairs(found) do print("FOUND " .. f) end
  print("searched, found " .. #found)
end)
'''


def run(tmp_path: Path, sim: bool) -> list[dict[str, Any]]:
    (tmp_path / "harness.lua").write_text(HARNESS)
    (tmp_path / "app.lua").write_text(HOSTILE)
    out = tmp_path / "records.jsonl"
    argv = [sys.executable, str(ROOT / "sandbox" / "run_local.py"), str(tmp_path / "app.lua"), "--nodes", "3",
            "--time", "6", "--seed", "4", "--harness", str(tmp_path / "harness.lua"), "--out", str(out), "--quiet"]
    argv += ["--sim"] if sim else ["--trace"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert proc.returncode == 0, (proc.stderr, [r for r in records if r["kind"] != "trace"])
    return records


@pytest.mark.parametrize("sim", [True, False], ids=["simulated", "live"])
def test_a_submission_reaches_nothing_of_the_harness(tmp_path: Path, sim: bool) -> None:
    records = run(tmp_path, sim)
    printed = [r["text"] for r in records if r["kind"] == "log"]
    assert not [line for line in printed if line.startswith("FOUND")], printed
    assert printed.count("searched, found 0") == 3, printed
    probes = [r for r in records if r["kind"] == "probe"]
    by_name: dict[str, list[dict[str, Any]]] = {}
    for r in probes:
        by_name.setdefault(r["name"], []).append(r)
    # the harness's records, and only them: one canary per node, none of the forged ones
    assert sorted(by_name) == ["called", "canary", "done"], probes
    assert [r["value"] for r in by_name["canary"]] == [1, 1, 1]
    # the submission ran in h.call's thread and killed it (the call timed out): the harness's own
    # thread went on
    assert [r["value"] for r in by_name["called"]] == [-1, -1, -1]
    assert {r["node"] for r in by_name["done"]} == {1, 2, 3}
    for r in by_name["done"]:
        # its own sleep, clock and generator: not the ones the submission replaced
        assert 0.45 <= r["value"] <= 1.5, r
        assert r["fields"]["kind"] == "table"
    # the forged lines stayed the app's own, visible as such
    assert any(r["kind"] == "metric" and r["name"] == "canary" for r in records)
    assert any(r["kind"] == "log" and r["text"].startswith("probe\t") for r in records)
    assert not [r for r in records if r["kind"] == "exit" and r["code"] not in (0,)], records


@pytest.mark.parametrize("sim", [True, False], ids=["simulated", "live"])
def test_a_submission_cannot_write_or_hide_trace_rows(tmp_path: Path, sim: bool) -> None:
    records = run(tmp_path, sim)
    rows = [row for r in records if r["kind"] == "trace" for row in r["rows"]]
    # the only rows are the runtime's: the operation that returned (the one whose thread the
    # submission killed never ended; the forged line stayed a log line)
    assert [(row[1], row[3], row[6]) for row in rows] == [("op", "ping", "ok")] * 3, rows
