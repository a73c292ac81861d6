-- The Chord assignment's harness: runs in every node before the submission (docs/grading.md).
-- It never changes the protocol: it reads the globals n, finger and predecessor, and calls the
-- submission's find_successor like any node would.
--   at STATE_AT:           node_state (ring id, successor, predecessor) of every node
--   from LOOKUPS_FROM on:  LOOKUPS lookups of random keys per node, spread over WINDOW s
local events = require "splay.events"
local misc = require "splay.misc"
local log = require "splay.log"
local metrics = require "splay.metrics"

local STATE_AT, LOOKUPS_FROM, WINDOW, LOOKUPS, M = 150, 160, 60, 10, 24

local function id_of(node) return type(node) == "table" and tonumber(node.id) or -1 end

events.thread(function()
  local start = misc.time()
  events.sleep(STATE_AT)
  if type(n) ~= "table" or type(finger) ~= "table" then
    log.warning("harness: the globals n and finger are missing: nothing to check")
    return
  end
  metrics.observe("node_state", n.id, {succ = id_of(finger[1]), pred = id_of(predecessor), round = 1})
  local at = {}
  for i = 1, LOOKUPS do at[i] = math.random() * WINDOW end
  table.sort(at)
  for i = 1, LOOKUPS do
    events.sleep(LOOKUPS_FROM + at[i] - (misc.time() - start))
    local key = math.random(0, 2^M - 1)
    local t0 = misc.time()
    local ok, owner, hops = pcall(find_successor, key)
    local took = misc.time() - t0
    if ok and type(owner) == "table" and owner.id then
      metrics.observe("lookup_latency", took, {key = key, owner = owner.id, hops = tonumber(hops) or -1})
    else
      metrics.observe("lookup_failed", took, {key = key, error = ok and "no owner returned" or tostring(owner)})
    end
  end
end)
