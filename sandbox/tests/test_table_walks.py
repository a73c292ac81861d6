"""Every table walk visits every entry, live and simulated (splaylab.safe_pairs): LuaJIT 2.1's
specialised pairs loop ends walks early once the JIT blacklists it (LuaJIT #827). The app is
that issue's reduced case, a `next` loop of the same shape, and pairs/next refusing a non-table
with the builtins' words at the student's line."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SANDBOX = Path(__file__).resolve().parent.parent

APP = """\
local t = {1, 2, 3, 4, 5}
local tab = {a = t, b = t, c = t, d = t, e = t}
local function f(...) for _ = 1, 100 do end end  -- a vararg call: back to the interpreter between walks
local short_pairs, short_next = 0, 0
for _ = 1, 100000 do
  f()
  local c = 0
  for _, v in pairs(tab) do
    for _ in pairs(v) do end
    c = c + 1
  end
  if c ~= 5 then short_pairs = short_pairs + 1 end
end
for _ = 1, 100000 do
  f()
  local c = 0
  for _, v in next, tab do
    for _ in next, v do end
    c = c + 1
  end
  if c ~= 5 then short_next = short_next + 1 end
end
print("short walks: pairs " .. short_pairs .. ", next " .. short_next)
print(select(2, pcall(function() local it = pairs(nil); return it end)))
print(select(2, pcall(function() local k = next(42); return k end)))
print(select(2, pcall(function() local k = next({}, "absent"); return k end)))
"""


@pytest.mark.parametrize("mode", ["live", "sim"])
def test_every_walk_visits_every_entry_and_errors_keep_their_words(tmp_path: Path, mode: str) -> None:
    app = tmp_path / "app.lua"
    app.write_text(APP)
    out = tmp_path / "out.jsonl"
    proc = subprocess.run([sys.executable, str(SANDBOX / "run_local.py"), str(app), "--nodes", "1", "--time", "30",
                           "--out", str(out), "--quiet"] + (["--sim"] if mode == "sim" else []),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [r["text"] for r in map(json.loads, out.read_text().splitlines()) if r["kind"] == "log"]
    assert lines == [
        "short walks: pairs 0, next 0",
        "app.lua:24: bad argument #1 to 'pairs' (table expected, got nil)",
        "app.lua:25: bad argument #1 to 'next' (table expected, got number)",
        "invalid key to 'next'",
    ]
