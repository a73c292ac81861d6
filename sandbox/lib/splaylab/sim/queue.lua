--[[
splaylab.sim.queue - the simulator kernel's event queue: a binary min-heap of entries
{t, seq, ...} ordered by (t, seq), each entry's index in the heap kept in its field 6 so that an
entry still queued can be given a new key in place (the kernel moves a node's stale deadline
rather than queue a new one). The comparisons are inlined: splaylab.heap's `less` callback
cost 3 % of a simulated Chord.

Usage: local queue = require "splaylab.sim.queue"
  queue.push(h, e); local first = queue.pop(h)   -- h[1] is the least entry
  queue.move(h, e, t, seq)   -- e's key becomes (t, seq): moved if e is queued, else pushed
]]
local M = { _NAME = "splaylab.sim.queue", _VERSION = "0.1" }

local floor = math.floor

local function sift_up(h, e, i)
  local t, seq = e[1], e[2]
  while i > 1 do
    local p = floor(i / 2)
    local pe = h[p]
    local pt = pe[1]
    if t < pt or (t == pt and seq < pe[2]) then
      h[i] = pe; pe[6] = i; i = p
    else break end
  end
  h[i] = e; e[6] = i
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
      h[i] = ce; ce[6] = i; i = c
    else break end
  end
  h[i] = e; e[6] = i
end

function M.push(h, e) sift_up(h, e, #h + 1) end

function M.pop(h)
  local n = #h
  local top, last = h[1], h[n]
  h[n] = nil
  if n > 1 then sift_down(h, last, 1, n - 1) end
  top[6] = nil   -- no longer queued
  return top
end

function M.move(h, e, t, seq)
  local pos, before_t, before_seq = e[6], e[1], e[2]
  e[1], e[2] = t, seq
  if not pos then return sift_up(h, e, #h + 1) end
  if t < before_t or (t == before_t and seq < before_seq) then sift_up(h, e, pos)
  else sift_down(h, e, pos, #h) end
end

return M
