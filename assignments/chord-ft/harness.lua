-- The fault-tolerant Chord assignment's harness: runs in every node before the submission
-- (docs/grading.md, "What harnesses record"). It never changes the protocol: it reads the
-- globals n, finger (finger[1]: the successor), predecessor and succs (the successor list), and
-- calls the submission's find_successor like any node would.
--   STATE_FIRST s after the node starts (round 0: its ring id is known from then on), then at
--   every instant of the clock that is OFFSET modulo STATE_EVERY (the same instants on every
--   node, round = that instant): node_state (ring id; succ, pred, succs)
--   from LOOKUPS_AFTER s after the node starts to the end of the run: a lookup of a random key
--   every LOOKUP_EVERY s (lookup_latency, or lookup_failed)
local events = require "splay.events"
local misc = require "splay.misc"
local log = require "splay.log"
local metrics = require "splay.metrics"

local STATE_FIRST, STATE_EVERY, OFFSET = 1, 10, 5
local LOOKUPS_AFTER, LOOKUP_EVERY, M = 15, 2, 24

local function id_of(node) return type(node) == "table" and tonumber(node.id) or -1 end

local function ids(list)
  if type(list) ~= "table" then return "" end
  local out = {}
  for i = 1, math.min(#list, 16) do out[i] = tostring(id_of(list[i])) end
  return table.concat(out, ",")
end

local warned = false
local function dump(round)
  local ok, err = pcall(function()
    if type(n) ~= "table" or not tonumber(n.id) or type(finger) ~= "table" then
      error("the globals n (with n.id) and finger are missing: nothing to report", 0)
    end
    metrics.observe("node_state", tonumber(n.id), {succ = id_of(finger[1]), pred = id_of(predecessor),
                                                   succs = ids(succs), kind = "ring", round = round})
  end)
  if not ok and not warned then
    warned = true
    log.warning("harness: " .. tostring(err))
  end
end

events.thread(function()
  events.sleep(STATE_FIRST)
  dump(0)
  while true do
    local now = misc.time()
    local at = (math.floor((now - OFFSET) / STATE_EVERY) + 1) * STATE_EVERY + OFFSET
    events.sleep(at - now)
    dump(at)
  end
end)

events.thread(function()
  events.sleep(LOOKUPS_AFTER)
  events.sleep(math.random() * LOOKUP_EVERY)
  while true do
    local key = math.random(0, 2^M - 1)
    local t0 = misc.time()
    local ok, owner, hops = pcall(find_successor, key)
    local took = misc.time() - t0
    if ok and type(owner) == "table" and owner.id then
      metrics.observe("lookup_latency", took, {key = key, owner = owner.id, hops = tonumber(hops) or -1})
    else
      metrics.observe("lookup_failed", took, {key = key, error = ok and "no owner returned" or tostring(owner)})
    end
    events.sleep(math.max(0, t0 + LOOKUP_EVERY - misc.time()))
  end
end)
