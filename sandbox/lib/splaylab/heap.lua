--[[
splaylab.heap - a binary min-heap of entries {t, seq, pos, ...} ordered by (t, then seq): the
events loop's timers and the simulator's event queue. Fields 1 - 3 are the heap's: the time,
a sequence number that breaks ties (the caller's, unique: the order is total, so a run depends
on nothing else), and the entry's index in the heap array (false once popped or removed), kept
so that a queued entry can be removed or given a new key in place. The rest is the caller's.
The comparisons are inlined (a `less` callback cost 3 % of a simulated Chord).
No state of its own: the array is the caller's.

Usage: local heap = require "splaylab.heap"
  heap.push(h, e); local first = heap.pop(h)   -- h[1] is the least entry
  heap.move(h, e, t, seq)   -- e's key becomes (t, seq): moved if e is queued, else pushed
  heap.remove(h, e)         -- e leaves the heap (no-op if it is not queued in h)
]]
local M = { _NAME = "splaylab.heap", _VERSION = "0.2" }

local floor = math.floor

local function sift_up(h, e, i)
  local t, seq = e[1], e[2]
  while i > 1 do
    local p = floor(i / 2)
    local pe = h[p]
    local pt = pe[1]
    if t < pt or (t == pt and seq < pe[2]) then
      h[i] = pe; pe[3] = i; i = p
    else break end
  end
  h[i] = e; e[3] = i
end

local function sift_down(h, e, i, n)
  local t, seq = e[1], e[2]
  while true do
    local c = 2 * i
    if c > n then break end
    local ce = h[c]
    if c < n then
      local re = h[c + 1]
      local rt, ct = re[1], ce[1]
      if rt < ct or (rt == ct and re[2] < ce[2]) then c = c + 1; ce = re end
    end
    local ct = ce[1]
    if ct < t or (ct == t and ce[2] < seq) then
      h[i] = ce; ce[3] = i; i = c
    else break end
  end
  h[i] = e; e[3] = i
end

-- The entry at i has a new key (or is new there): it goes up or down to its place.
local function fix(h, e, i, n)
  local p = i > 1 and h[floor(i / 2)]
  if p and (e[1] < p[1] or (e[1] == p[1] and e[2] < p[2])) then sift_up(h, e, i)
  else sift_down(h, e, i, n) end
end

function M.push(h, e) sift_up(h, e, #h + 1) end

function M.pop(h)
  local n = #h
  local top, last = h[1], h[n]
  h[n] = nil
  if n > 1 then sift_down(h, last, 1, n - 1) end
  top[3] = false
  return top
end

-- An entry counts as queued in h only where h holds it: an index left from another heap (the
-- events loop starts a new one after events.exit) is not taken for one in h.
function M.move(h, e, t, seq)
  e[1], e[2] = t, seq
  local i = e[3]
  if i and h[i] == e then fix(h, e, i, #h) else sift_up(h, e, #h + 1) end
end

function M.remove(h, e)
  local i = e[3]
  if not i or h[i] ~= e then return end
  e[3] = false
  local n = #h
  local last = h[n]
  h[n] = nil
  if i < n then fix(h, last, i, n - 1) end
end

return M
