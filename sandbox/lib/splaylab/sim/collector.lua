--[[
splaylab.sim.collector - the collector's pause set from a garbage budget, after every cycle.

LuaJIT starts a collection cycle when the heap reaches `pause` % of what the last cycle kept. A
fixed pause spends the same marking per byte allocated whatever the heap: on a small simulation
(a grading run: 64 nodes, ~25 MB kept) a pause of 150 % walks the whole live heap for every
12 MB of garbage, ~27 % of the run's time. Here the pause lets garbage grow to a budget instead
(kept + budget), between a floor (large runs: what memory allows, the old fixed 150 %) and a
ceiling. Collection timing is no part of a run's records: the same run gives the same records
whatever the pause (checked in sandbox/tests/test_sim.py), and the pause depends only on what
the run allocated, so reruns stay the same.

A cycle's end is seen by a sentinel: a userdata with a finalizer, unreachable, made anew by its
own finalizer. Finalizers run at the end of a cycle, before LuaJIT computes the next threshold
from the pause, so the pause set there applies to the cycle that just ended.

Usage: require("splaylab.sim.collector").start{ budget_mb = 128, min_pause = 150, max_pause = 1000 }
(those are the defaults: what sim.lua uses, the budget from sim.json's gc_budget_mb)
]]
local M = { _NAME = "splaylab.sim.collector", _VERSION = "0.1" }

local collectgarbage, newproxy, getmetatable, floor = collectgarbage, newproxy, getmetatable, math.floor

--- The pause (%) that lets a heap of kept_kb grow by budget_kb, within [min_pause, max_pause].
function M.pause_for(kept_kb, budget_kb, min_pause, max_pause)
  local pause = floor(100 * (kept_kb + budget_kb) / kept_kb)
  if pause < min_pause then return min_pause end
  if pause > max_pause then return max_pause end
  return pause
end

--- Sets the pause now and after every cycle. Returns a handle: stats() gives the cycles seen
--- and the pause last set; stop(pause) stops tuning and sets that pause (tests).
function M.start(opts)
  local budget_kb = (opts.budget_mb or 128) * 1024
  local min_pause, max_pause = opts.min_pause or 150, opts.max_pause or 1000
  local cycles, pause, stopped = 0, nil, false
  local function tune()
    -- what the heap holds at a cycle's end: what the cycle kept, and what came since its sweep
    pause = M.pause_for(collectgarbage("count"), budget_kb, min_pause, max_pause)
    collectgarbage("setpause", pause)
  end
  local function arm()
    local sentinel = newproxy(true)
    getmetatable(sentinel).__gc = function()
      if stopped then return end
      cycles = cycles + 1
      tune()
      arm()
    end
  end
  tune()
  arm()
  return {
    stats = function() return cycles, pause end,
    stop = function(restore) stopped = true; collectgarbage("setpause", restore) end,
  }
end

return M
