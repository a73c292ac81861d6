-- The Chord assignment's harness. The runtime loads it in every node before the submission, in an
-- environment of its own, and hands it the capability h (docs/grading.md, "What the grader
-- trusts"): its records cannot be written, and its functions not replaced, by the submission.
-- It never changes the protocol: it reads the globals n, finger and predecessor, and calls the
-- submission's find_successor like any node would.
--   at STATE_AT:           node_state (ring id, successor, predecessor) of every node
--   from LOOKUPS_FROM on:  LOOKUPS lookups of random keys per node, spread over WINDOW s, each
--                          one an operation of the runtime (its messages are traced to it) that
--                          counts as unanswered after TIMEOUT s
local h = ...
local events = require "splay.events"

local STATE_AT, LOOKUPS_FROM, WINDOW, LOOKUPS, TIMEOUT, M = 150, 160, 60, 10, 15, 24
local type, tonumber, rawget = type, tonumber, rawget

-- the submission's tables are read raw: no metamethod of theirs runs in the harness
local function id_of(node) return type(node) == "table" and tonumber(rawget(node, "id")) or -1 end

local function lookup(i, key)
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
  local start = h.now()
  events.sleep(STATE_AT)
  local n, finger = h.global("n"), h.global("finger")
  if type(n) ~= "table" or type(finger) ~= "table" then
    h.record("harness_error", 1, {text = "the globals n and finger are missing: nothing to check"})
    return
  end
  h.record("node_state", id_of(n), {succ = id_of(rawget(finger, 1)), pred = id_of(h.global("predecessor")), round = 1})
  local at = {}
  for i = 1, LOOKUPS do at[i] = h.random() * WINDOW end
  table.sort(at)
  for i = 1, LOOKUPS do
    events.sleep(LOOKUPS_FROM + at[i] - (h.now() - start))
    local key = h.random(0, 2^M - 1)
    events.thread(function() lookup(i, key) end)
  end
end)
