--[[
splaylab.heap - a binary min-heap on a plain array, ordered by a `less(a, b)` the caller gives:
the events loop's timers (by time) and the simulator's event queue (by time, then sequence).
No state of its own: the array is the caller's.

Usage: local heap = require "splaylab.heap"
  heap.push(h, item, less); local first = heap.pop(h, less)   -- h[1] is the least item
  heap.heapify(array, less) -> array                           -- any array made a heap, in O(n)
]]
local M = { _NAME = "splaylab.heap", _VERSION = "0.1" }

local floor = math.floor

function M.push(h, item, less)
  local i = #h + 1
  h[i] = item
  while i > 1 do
    local p = floor(i / 2)
    if not less(h[i], h[p]) then break end
    h[p], h[i] = h[i], h[p]
    i = p
  end
end

local function sift_down(h, i, n, less)
  while true do
    local l, r, s = 2 * i, 2 * i + 1, i
    if l <= n and less(h[l], h[s]) then s = l end
    if r <= n and less(h[r], h[s]) then s = r end
    if s == i then break end
    h[s], h[i] = h[i], h[s]
    i = s
  end
end

function M.pop(h, less)
  local top, n = h[1], #h
  h[1] = h[n]
  h[n] = nil
  sift_down(h, 1, n - 1, less)
  return top
end

function M.heapify(h, less)
  local n = #h
  for i = floor(n / 2), 1, -1 do sift_down(h, i, n, less) end
  return h
end

return M
