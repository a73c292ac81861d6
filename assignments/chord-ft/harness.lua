-- The fault-tolerant Chord assignment's harness. The runtime loads it in every node before the
-- submission, in an environment of its own, and hands it the capability h (docs/grading.md,
-- "What the grader trusts"): its records cannot be written, and its functions not replaced, by
-- the submission. It never changes the protocol: it reads the globals n, finger (finger[1]: the
-- successor), predecessor and succs (the successor list), and calls the submission's
-- find_successor like any node would.
--   STATE_FIRST s after the node starts (round 0: its ring id is known from then on), then at
--   every instant of the clock that is OFFSET modulo STATE_EVERY (the same instants on every
--   node, round = that instant): node_state (ring id; succ, pred, succs)
--   from LOOKUPS_AFTER s after the node starts to the end of the run: a lookup of a random key
--   every LOOKUP_EVERY s, each an operation of the runtime (its messages are traced to it) that
--   counts as unanswered after TIMEOUT s (lookup_latency, or lookup_failed)
local h = ...
local events = require "splay.events"

local STATE_FIRST, STATE_EVERY, OFFSET = 1, 10, 5
local LOOKUPS_AFTER, LOOKUP_EVERY, TIMEOUT, M = 15, 2, 20, 24
local type, tonumber, rawget, tostring, pcall = type, tonumber, rawget, tostring, pcall
local floor, min, concat = math.floor, math.min, table.concat

-- the submission's tables are read raw: no metamethod of theirs runs in the harness
local function id_of(node) return type(node) == "table" and tonumber(rawget(node, "id")) or -1 end

local function ids(list)
  if type(list) ~= "table" then return "" end
  local out = {}
  for i = 1, min(#list, 16) do out[i] = tostring(id_of(rawget(list, i))) end
  return concat(out, ",")
end

local warned = false
local function dump(round)
  local n, finger = h.global("n"), h.global("finger")
  if type(n) ~= "table" or id_of(n) < 0 or type(finger) ~= "table" then
    if not warned then
      warned = true
      h.record("harness_error", 1, {text = "the globals n (with n.id) and finger are missing: nothing to report"})
    end
    return
  end
  local ok, succs = pcall(ids, h.global("succs"))
  h.record("node_state", id_of(n), {succ = id_of(rawget(finger, 1)), pred = id_of(h.global("predecessor")),
                                    succs = ok and succs or "", kind = "ring", round = round})
end

local seq = 0
local function lookup(key)
  seq = seq + 1
  local i = seq
  h.record("lookup_started", 0, {key = key, seq = i, timeout = TIMEOUT})
  local done = false
  events.thread(function()
    events.sleep(TIMEOUT)
    if not done then
      done = true
      h.record("lookup_failed", TIMEOUT, {key = key, seq = i, error = "no answer within " .. TIMEOUT .. " s"})
    end
  end)
  local find_successor = h.global("find_successor")
  if type(find_successor) ~= "function" then
    done = true
    h.record("lookup_failed", 0, {key = key, seq = i, error = "find_successor is not a function"})
    return
  end
  local op, took, ok, owner, hops = h.operation("lookup", find_successor, key)
  if done then return end   -- too late: already counted as unanswered
  done = true
  if ok and type(owner) == "table" and id_of(owner) >= 0 then
    h.record("lookup_latency", took, {key = key, seq = i, op = op, owner = id_of(owner),
                                      claimed_hops = tonumber(hops) or -1})
  else
    h.record("lookup_failed", took, {key = key, seq = i, op = op,
                                     error = ok and "no owner returned" or (type(owner) == "string" and owner or "error")})
  end
end

events.thread(function()
  events.sleep(STATE_FIRST)
  dump(0)
  while true do
    local now = h.now()
    local at = (floor((now - OFFSET) / STATE_EVERY) + 1) * STATE_EVERY + OFFSET
    events.sleep(at - now)
    dump(at)
  end
end)

events.thread(function()
  events.sleep(LOOKUPS_AFTER)
  events.sleep(h.random() * LOOKUP_EVERY)
  while true do
    local key = h.random(0, 2^M - 1)
    events.thread(function() lookup(key) end)
    events.sleep(LOOKUP_EVERY)
  end
end)
