-- splaylab.sim.collector: the collector's pause follows a garbage budget, cycle after cycle
-- (docs/simulation.md "Figures": the collector's budget).
local collector = require "splaylab.sim.collector"

describe("sim.collector", function()
  it("lets the heap grow by the budget, between the floor and the ceiling", function()
    assert.equal(612, collector.pause_for(25 * 1024, 128 * 1024, 150, 1000))   -- a grading run
    assert.equal(150, collector.pause_for(2 * 1024 * 1024, 128 * 1024, 150, 1000))   -- 2 GB kept
    assert.equal(1000, collector.pause_for(1024, 128 * 1024, 150, 1000))        -- 1 MB kept
    assert.equal(150, collector.pause_for(25 * 1024, 0, 150, 1000))             -- no budget
  end)

  it("by default lets a large run's garbage reach two fifths of what it keeps", function()
    local mb, budget = 1024, collector.BUDGET_MB * 1024
    local function pause(kept_mb)
      return collector.pause_for(kept_mb * mb, budget, collector.MIN_PAUSE, collector.MAX_PAUSE)
    end
    assert.equal(612, pause(25))     -- a grading run: the budget
    assert.equal(150, pause(256))    -- the budget is half the heap
    assert.equal(140, pause(320))    -- the budget and the floor meet
    assert.equal(140, pause(400))    -- a 3,000-node Chord: the floor
    assert.equal(140, pause(1024))   -- a 10,000-node Chord: two fifths
    assert.equal(140, pause(12 * 1024))
  end)

  it("starts cycles earlier near the memory limit, down to 110 %, and only there", function()
    local ceiling = collector.ceiling_kb(21 * 1024)                    -- a 21 GB address space
    assert.is_true(ceiling > 15 * 1024 * 1024 and ceiling < 16 * 1024 * 1024)
    local gb = 1024 * 1024
    assert.equal(150, collector.pause_for(8 * gb, 128 * 1024, 150, 1000, ceiling))    -- far from it
    assert.equal(612, collector.pause_for(25 * 1024, 128 * 1024, 150, 1000, ceiling)) -- a grading run
    local p12 = collector.pause_for(12 * gb, 128 * 1024, 150, 1000, ceiling)
    assert.is_true(p12 < 150 and p12 > 110 and 12 * gb * p12 / 100 <= ceiling, "pause " .. p12)
    assert.equal(110, collector.pause_for(15 * gb, 128 * 1024, 150, 1000, ceiling))   -- no lower
    assert.equal(150, collector.pause_for(12 * gb, 128 * 1024, 150, 1000, nil))       -- no limit
  end)

  it("reads the run's address space limit", function()
    local handle = io.popen("ulimit -v 3145728 && luajit -e 'package.path = \"lib/?.lua;\" .. package.path; " ..
      "print(require(\"splaylab.sim.collector\").address_space_mb())'")
    local text = handle:read("*a")
    handle:close()
    assert.equal("3072", text:match("^%s*(.-)%s*$"))
  end)

  it("sets the pause at the end of every cycle from what the heap then holds", function()
    local before = collectgarbage("setpause", 200)
    collectgarbage("setpause", before)
    collectgarbage()
    -- a budget as large as the heap: the pause near 200 %, inside the floor and the ceiling
    local budget_mb = collectgarbage("count") / 1024
    local tuner = collector.start { budget_mb = budget_mb, min_pause = 110, max_pause = 1000 }
    local ok, err = pcall(function()
      local cycles0 = tuner.stats()
      local keep = {}
      for i = 1, 4 * 1024 do keep[i] = string.rep("x", 1024) .. i end   -- 4 MB more kept
      collectgarbage()
      collectgarbage()
      assert.equal(4 * 1024, #keep)   -- still kept
      local cycles, pause = tuner.stats()
      assert.is_true(cycles >= cycles0 + 2, "a cycle's end was not seen")
      local expected = collector.pause_for(collectgarbage("count"), budget_mb * 1024, 110, 1000)
      assert.is_true(math.abs(pause - expected) <= 2, ("pause %d, expected %d"):format(pause, expected))
      assert.is_true(pause > 110 and pause < 200, "more kept for the same budget: a smaller pause")
      assert.equal(pause, collectgarbage("setpause", pause))   -- what the collector really uses
      -- garbage alone ends cycles too (no full collect asked)
      local ring = {}   -- each table escapes (the JIT would sink an unused one)
      for i = 1, 400000 do ring[i % 16] = { i, i, i } end
      assert.equal(400000, ring[0][1])
      assert.is_true(tuner.stats() > cycles, "no cycle ended while garbage piled up")
    end)
    tuner.stop(before)
    assert(ok, err)
  end)
end)
