--[[
splaylab.sim.collector - the collector's pause set from a garbage budget, after every cycle.

LuaJIT starts a collection cycle when the heap reaches `pause` % of what the last cycle kept. A
fixed pause spends the same marking per byte allocated whatever the heap: on a small simulation
(a grading run: 64 nodes, ~25 MB kept) a pause of 150 % walks the whole live heap for every
12 MB of garbage, ~27 % of the run's time. Here the pause lets garbage grow to a budget instead
(kept + budget), between a floor and a ceiling. The floor, 140 %, is what a large run gets:
from ~320 MB kept the budget is less than two fifths of the heap, and the garbage may grow to
that much. (120 % from the eighth session, when a 10,000-node Chord kept 1.25 GB and peaked at
2,352 MiB at 150 %; with what it keeps now, ~1 GB, 140 % peaks at 1,740 MiB, 182 KB per node,
for 8.5 % less CPU than 120 %: docs/simulation.md, fifteenth session.) Collection timing is no part of a run's
records: the same run gives the same records whatever the pause (checked in
sandbox/tests/test_sim_collector.py), and the pause depends only on what the run allocated, so
reruns stay the same.

Near the run's memory limit (its address space: sandbox/simulate.py's max_mem, ./splaylab run
--sim-max-mem), the floor gives way: the next cycle starts before the heap would pass a ceiling
under that limit, down to a pause of 110 %. A large run then spends more time collecting
instead of failing with "out of memory" while a third of what it holds is garbage (100,000
Cyclon nodes under 20 GB: docs/simulation.md). A run far from its limit is not affected.

A cycle's end is seen by a sentinel: a userdata with a finalizer, unreachable, made anew by its
own finalizer. Finalizers run at the end of a cycle, before LuaJIT computes the next threshold
from the pause, so the pause set there applies to the cycle that just ended.

Usage: require("splaylab.sim.collector").start{ budget_mb = 128, min_pause = 140, max_pause = 1000,
  limit_mb = nil }
(those are the defaults: what sim.lua uses, the budget from sim.json's gc_budget_mb, the limit from
the process's RLIMIT_AS: M.address_space_mb())
]]
local M = { _NAME = "splaylab.sim.collector", _VERSION = "0.1" }

local collectgarbage, newproxy, getmetatable, floor = collectgarbage, newproxy, getmetatable, math.floor

local LOWEST_PAUSE = 110
-- start's defaults: the budget (MB), the floor and the ceiling of the pause (%)
M.BUDGET_MB, M.MIN_PAUSE, M.MAX_PAUSE = 128, 140, 1000
-- What the collector's heap may reach at a cycle's start, of a limit: the heap grows further
-- while the incremental cycle runs (~10 %), the process holds more than the heap (the JIT's
-- machine code, up to 64 MB; the allocator's free pages; the C libraries): measured, a peak
-- resident size ~1.2 times the heap's peak (docs/simulation.md).
local RESERVE_KB, GROWTH = 256 * 1024, 1.35
function M.ceiling_kb(limit_mb) return limit_mb and (limit_mb * 1024 - RESERVE_KB) / GROWTH end

--- The pause (%) that lets a heap of kept_kb grow by budget_kb, within [min_pause, max_pause],
--- and under ceiling_kb (when given) down to 110 %.
function M.pause_for(kept_kb, budget_kb, min_pause, max_pause, ceiling_kb)
  local pause = floor(100 * (kept_kb + budget_kb) / kept_kb)
  if pause < min_pause then pause = min_pause end
  if pause > max_pause then pause = max_pause end
  if ceiling_kb and kept_kb * pause / 100 > ceiling_kb then
    pause = floor(100 * ceiling_kb / kept_kb)
    if pause < LOWEST_PAUSE then pause = LOWEST_PAUSE end
  end
  return pause
end

-- The process's address space limit (RLIMIT_AS) in MB, or nil when there is none.
function M.address_space_mb()
  local ok, ffi = pcall(require, "ffi")
  if not ok or ffi.os ~= "Linux" then return nil end
  pcall(ffi.cdef, "struct splaylab_rlimit { uint64_t cur, max; }; int getrlimit(int, struct splaylab_rlimit *);")
  local r = ffi.new("struct splaylab_rlimit")
  if ffi.C.getrlimit(9, r) ~= 0 then return nil end   -- 9: RLIMIT_AS
  if r.cur >= 2ULL ^ 62 then return nil end           -- RLIM_INFINITY
  return tonumber(r.cur) / 2 ^ 20
end

--- Sets the pause now and after every cycle. Returns a handle: stats() gives the cycles seen
--- and the pause last set; stop(pause) stops tuning and sets that pause (tests).
function M.start(opts)
  local budget_kb = (opts.budget_mb or M.BUDGET_MB) * 1024
  local min_pause, max_pause = opts.min_pause or M.MIN_PAUSE, opts.max_pause or M.MAX_PAUSE
  local ceiling_kb = M.ceiling_kb(opts.limit_mb)
  local cycles, pause, stopped = 0, nil, false
  local function tune()
    -- what the heap holds at a cycle's end: what the cycle kept, and what came since its sweep
    pause = M.pause_for(collectgarbage("count"), budget_kb, min_pause, max_pause, ceiling_kb)
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
