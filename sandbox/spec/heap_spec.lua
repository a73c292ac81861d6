-- splaylab.heap: the events loop's timers and the simulator's queue pop in (time, sequence) order,
-- whether the heap was built by pushes or made from an array by heapify.
local heap = require "splaylab.heap"

local function less(a, b)
  if a[1] ~= b[1] then return a[1] < b[1] end
  return a[2] < b[2]
end

local function items(n, seed)
  math.randomseed(seed)
  local list = {}
  for i = 1, n do list[i] = { math.random(0, 20), i } end   -- many equal times: ties on seq
  return list
end

local function drain(h)
  local out = {}
  while h[1] do out[#out + 1] = heap.pop(h, less) end
  return out
end

local function sorted(list)
  local copy = {}
  for i, v in ipairs(list) do copy[i] = v end
  table.sort(copy, less)
  return copy
end

describe("splaylab.heap", function()
  it("pops pushed items in order", function()
    for seed = 1, 20 do
      local list, h = items(200, seed), {}
      for _, v in ipairs(list) do heap.push(h, v, less) end
      assert.same(sorted(list), drain(h))
    end
  end)

  it("heapify makes any array a heap that pops in the same order", function()
    for n = 0, 64 do
      local list = items(n, n)
      local expect = sorted(list)
      local h = heap.heapify(list, less)
      assert.equal(list, h)   -- in place
      assert.same(expect, drain(h))
    end
  end)

  it("a heapified array takes pushes and pops as one built by pushes", function()
    local h = heap.heapify(items(100, 7), less)
    for i = 101, 150 do heap.push(h, { i % 13, i }, less) end
    local out = drain(h)
    for i = 2, #out do assert.is_true(less(out[i - 1], out[i])) end
    assert.equal(150, #out)
  end)
end)
