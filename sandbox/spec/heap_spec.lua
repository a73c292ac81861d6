-- splaylab.heap: the events loop's timers and the simulator's queue pop in (time, sequence)
-- order; an entry moved to a new key pops where a new entry with that key would, a removed
-- one not at all, and every queued entry knows its index.
local heap = require "splaylab.heap"

local function less(a, b)
  if a[1] ~= b[1] then return a[1] < b[1] end
  return a[2] < b[2]
end

local function drain(h)
  local out = {}
  while h[1] do
    local e = heap.pop(h)
    assert.is_false(e[3])   -- popped: no longer queued
    out[#out + 1] = e[2]
  end
  return out
end

describe("splaylab.heap", function()
  it("pops pushed entries by time, ties by sequence", function()
    for seed = 1, 20 do
      math.randomseed(seed)
      local h, all = {}, {}
      for i = 1, 300 do
        local e = { math.random(0, 20), i, false }   -- many equal times
        all[i] = e
        heap.push(h, e)
      end
      table.sort(all, less)
      local expect = {}
      for i, e in ipairs(all) do expect[i] = e[2] end
      assert.same(expect, drain(h))
    end
  end)

  it("takes moves (earlier or later), removals, pushes and pops in any mix", function()
    for seed = 1, 20 do
      math.randomseed(seed)
      local h, live, seq, known = {}, {}, 0, {}
      for _ = 1, 600 do
        local r = math.random(5)
        if r == 1 and known[1] then
          seq = seq + 1
          local e = known[math.random(#known)]
          heap.move(h, e, math.random(0, 30), seq)
          live[e] = true
        elseif r == 2 and known[1] then
          local e = known[math.random(#known)]
          heap.remove(h, e)
          assert.is_false(e[3])
          live[e] = nil
        elseif r == 3 and h[1] then
          local e = heap.pop(h)
          local least = true
          for x in pairs(live) do if less(x, e) then least = false end end
          assert.is_true(least)   -- the least of the queued
          live[e] = nil
        else
          seq = seq + 1
          local e = { math.random(0, 30), seq, false }
          heap.push(h, e)
          known[#known + 1] = e
          live[e] = true
        end
        local kept = true
        for i, e in ipairs(h) do if e[3] ~= i then kept = false end end
        assert.is_true(kept)   -- every entry knows its index
      end
      local n = 0
      for _ in pairs(live) do n = n + 1 end
      assert.equal(n, #drain(h))
    end
  end)

  it("does not take an entry of another heap for one of its own", function()
    local old, new = {}, {}
    local stray = { 5, 1, false }
    heap.push(old, { 1, 2, false }); heap.push(old, stray)   -- stray sits at index 2 of old
    local a, b = { 3, 3, false }, { 4, 4, false }
    heap.push(new, a); heap.push(new, b)
    heap.remove(new, stray)   -- a thread of a loop that was reset
    assert.same({ 3, 4 }, drain(new))
    heap.move(new, stray, 2, 5)   -- pushed, not moved
    assert.same({ 5 }, drain(new))
  end)
end)
