-- The epidemic-broadcast assignment's harness. The runtime loads it in every node before the
-- submission, in an environment of its own, and hands it the capability h (docs/grading.md,
-- "What the grader trusts"): its records cannot be written, and its functions not replaced, by
-- the submission. It never changes the protocol. It
--   * starts the broadcasts of SCHEDULE: at its instant, the origin builds a message
--     {id = OP, sent = NOW, body = "..."} whose id is the runtime operation the broadcast runs as (every rpc
--     call made for it, on every node, carries that id: the trace counts its messages), records
--     broadcast_sent and calls the submission's broadcast(msg);
--   * defines the global deliver(msg), which the submission calls when a message reaches a node
--     for the first time, and records broadcast_delivered once per message and node, provided a
--     message of that broadcast did reach this node (h.served): a delivery of a message the node
--     never received is recorded as broadcast_unfounded instead. The grader computes latencies
--     from these records' own times (sent at the origin, delivered here), never from the message;
--   * every FLUSH s, records gossip_traffic: fields delivered (first deliveries) and duplicates
--     (deliver called again for a message this node had delivered).
-- A missing broadcast, or a submission that redefines deliver, is a harness_error (the grader's
-- no_runtime_errors reports it). A node passes at most COPIES copies of one message to receive.
local h = ...
local events = require "splay.events"

-- {seconds after the node starts, origin position (modulo the number of nodes)}
local SCHEDULE = {
  {20, 1}, {23, 17}, {26, 33}, {29, 49}, {32, 65}, {35, 81},
  {52, 9}, {55, 17}, {58, 25}, {61, 33}, {64, 41}, {67, 49},
  {70, 57}, {73, 65}, {76, 73}, {79, 81}, {82, 89}, {85, 97},
}
local FLUSH = 10
-- Copies of one message passed to a node's receive; later ones are dropped (the trace still
-- counts them: they were sent). A right submission ignores every copy after the first, so this
-- changes nothing for it; it bounds the simulation of a submission that forwards every copy
-- (variants/forward-every-copy.lua: 117,000 messages and 42 s of simulation on the static run;
-- without the bound up to 6 + 6^2 + ... + 6^6 = 55,986 per broadcast: 783,000 messages and
-- 9 minutes). Only a bound on cost: no grade reads it.
local COPIES = 20
local type, tostring, rawget, rawset = type, tostring, rawget, rawset

local app, job = h.app, h.job
local own, delivered = {}, {}               -- message id -> true
local deliveries, duplicates, unfounded = 0, 0, 0
local complained = false

local function complain(text)
  if not complained then h.record("harness_error", 1, {text = text}) end
  complained = true
end

local function grader_deliver(msg)
  local id = type(msg) == "table" and rawget(msg, "id") or nil
  if type(id) ~= "string" then
    complain("deliver(msg): msg must be the table broadcast or receive got, with its field id (got "
             .. (type(msg) == "table" and "a table without it" or type(msg)) .. ")")
    return
  end
  if own[id] then return end                -- the origin delivering its own message: ignored
  if delivered[id] then
    duplicates = duplicates + 1
    return
  end
  delivered[id] = true
  if h.served(id) then
    deliveries = deliveries + 1
    h.record("broadcast_delivered", 0, {msg = id})
  else                                       -- no message of that broadcast reached this node
    unfounded = unfounded + 1
    h.record("broadcast_unfounded", 0, {msg = id})
  end
end
rawset(app, "deliver", grader_deliver)

-- The submission's receive(msg), wrapped to bound the copies of one message (see COPIES);
-- wrapped again if the submission defines it again later.
local wrapped, copies = nil, {}
local function watch_receive()
  local f = rawget(app, "receive")
  if f == wrapped or type(f) ~= "function" then return end
  wrapped = function(msg, ...)
    local id = type(msg) == "table" and rawget(msg, "id")
    if id ~= nil then
      id = tostring(id)
      copies[id] = (copies[id] or 0) + 1
      if copies[id] > COPIES then return end
    end
    return f(msg, ...)
  end
  rawset(app, "receive", wrapped)
end

events.thread(function()                     -- runs once the submission has loaded
  while true do
    if rawget(app, "deliver") ~= grader_deliver then
      complain("the submission defines deliver(msg): it is the grader's, call it and do not define it")
      rawset(app, "deliver", grader_deliver)
    end
    watch_receive()
    events.sleep(FLUSH)
    if deliveries + duplicates + unfounded > 0 then
      h.record("gossip_traffic", deliveries, {delivered = deliveries, duplicates = duplicates, unfounded = unfounded})
      deliveries, duplicates, unfounded = 0, 0, 0
    end
  end
end)

local start = h.now()
for i, entry in ipairs(SCHEDULE) do
  if (entry[2] - 1) % math.max(1, #job.nodes) + 1 == job.position then
    events.thread(function()
      events.sleep(entry[1] - (h.now() - start))
      watch_receive()
      local broadcast = rawget(app, "broadcast")
      if type(broadcast) ~= "function" then
        complain("the global function broadcast(msg) is missing: nothing to broadcast")
        return
      end
      local op = h.reserve("broadcast")
      local msg = {id = op, sent = h.now(), body = "broadcast #" .. i}
      own[op] = true
      h.record("broadcast_sent", 1, {msg = op})
      local _, _, ok, err = h.operation(op, broadcast, msg)
      if not ok then complain("broadcast raised: " .. (type(err) == "string" and err or type(err))) end
    end)
  end
end
