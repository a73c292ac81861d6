-- splaylab.sim.queue: the simulator kernel's queue pops in (time, sequence) order, and an entry
-- given a new key in place (a node's moved deadline) pops where a new entry with that key would.
local queue = require "splaylab.sim.queue"

local function less(a, b)
  if a[1] ~= b[1] then return a[1] < b[1] end
  return a[2] < b[2]
end

local function drain(h)
  local out = {}
  while h[1] do
    local e = queue.pop(h)
    assert.is_nil(e[6])   -- popped: no longer marked as queued
    out[#out + 1] = e[2]
  end
  return out
end

describe("splaylab.sim.queue", function()
  it("pops pushed entries by time, ties by sequence", function()
    for seed = 1, 20 do
      math.randomseed(seed)
      local h, all = {}, {}
      for i = 1, 300 do
        local e = { math.random(0, 20), i }   -- many equal times
        all[i] = e
        queue.push(h, e)
      end
      table.sort(all, less)
      local expect = {}
      for i, e in ipairs(all) do expect[i] = e[2] end
      assert.same(expect, drain(h))
    end
  end)

  it("moves a queued entry to a new key, earlier or later, as if it were pushed anew", function()
    for seed = 1, 20 do
      math.randomseed(seed)
      local h, live, seq = {}, {}, 0
      local movable = {}
      for i = 1, 40 do
        seq = seq + 1
        local e = { math.random(0, 30), seq, i }
        movable[i] = e
        queue.push(h, e)
        live[e] = true
      end
      for _ = 1, 500 do   -- interleave moves, pops and pushes
        local r = math.random(3)
        if r == 1 then
          seq = seq + 1
          local e = movable[math.random(#movable)]
          queue.move(h, e, math.random(0, 30), seq)
          live[e] = true
        elseif r == 2 and h[1] then
          local e = queue.pop(h)
          local least = true
          for x in pairs(live) do if less(x, e) then least = false end end
          assert.is_true(least)   -- the least of the queued
          live[e] = nil
        else
          seq = seq + 1
          local e = { math.random(0, 30), seq }
          queue.push(h, e)
          live[e] = true
        end
        local kept = true
        for i, e in ipairs(h) do if e[6] ~= i then kept = false end end
        assert.is_true(kept)   -- every entry knows its position
      end
      local n = 0
      for _ in pairs(live) do n = n + 1 end
      local out = drain(h)
      assert.equal(n, #out)
    end
  end)
end)
