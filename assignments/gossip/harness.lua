-- The epidemic-broadcast assignment's harness: runs in every node before the submission
-- (docs/grading.md). It never changes the protocol. It
--   * defines the global deliver(msg), which the submission calls when a message reaches a node
--     for the first time, and records broadcast_delivered (seconds since the message was sent,
--     from its field `sent`) once per message and node;
--   * starts the broadcasts of SCHEDULE: at its instant, the origin builds a message
--     {id = "POSITION:COUNTER", sent = now, body = "..."}, records broadcast_sent and calls the
--     submission's broadcast(msg);
--   * counts the calls of the submission's global receive(msg) (how gossip travels between
--     nodes) and, every FLUSH s, records gossip_traffic: value = calls of receive since the last
--     record, fields delivered (first deliveries) and duplicates (deliver called again for a
--     message this node had delivered), so that checks.py can price a delivery in messages.
-- An error raised in receive, a missing broadcast or a submission that redefines deliver is
-- logged as an error (no_runtime_errors reports it). A node passes at most COPIES copies of one
-- message to receive (below).
local events = require "splay.events"
local misc = require "splay.misc"
local log = require "splay.log"
local metrics = require "splay.metrics"

-- {seconds after the node starts, origin position (modulo the number of nodes)}
local SCHEDULE = {
  {20, 1}, {23, 17}, {26, 33}, {29, 49}, {32, 65}, {35, 81},
  {52, 9}, {55, 17}, {58, 25}, {61, 33}, {64, 41}, {67, 49},
  {70, 57}, {73, 65}, {76, 73}, {79, 81}, {82, 89}, {85, 97},
}
local FLUSH = 10
-- Copies of one message passed to a node's receive; later ones are counted (gossip_traffic) but
-- dropped. A right submission ignores every copy after the first, so this changes nothing for
-- it; it bounds a submission that forwards every copy (variants/forward-every-copy.lua: 117,000
-- messages and 42 s of simulation on the static run; without the bound up to 6 + 6^2 + ... + 6^6
-- = 55,986 per broadcast: 783,000 messages and 9 minutes).
local COPIES = 20

local start = misc.time()
local own, delivered = {}, {}               -- message id -> true
local received, deliveries, duplicates = 0, 0, 0
local complained, raised = false, 0

local function complain(text)
  if not complained then log.error(text) end
  complained = true
end

function deliver(msg)
  local id = type(msg) == "table" and msg.id or nil
  local sent = type(msg) == "table" and tonumber(msg.sent) or nil
  if id == nil or sent == nil then
    complain("deliver(msg): msg must be the table broadcast or receive got, with its fields id and sent "
             .. "(got " .. (type(msg) == "table" and "a table without them" or type(msg)) .. ")")
    return
  end
  id = tostring(id)
  if own[id] then return end                -- the origin delivering its own message: ignored
  if delivered[id] then
    duplicates = duplicates + 1
    return
  end
  delivered[id] = true
  deliveries = deliveries + 1
  metrics.observe("broadcast_delivered", misc.time() - sent, {msg = id})
end
local grader_deliver = deliver

-- receive(msg) as the submission defined it, wrapped to count its calls; re-wrapped if the
-- submission defines it again later. An error in it is logged as an error (rpc alone would only
-- log a warning on this node and answer the caller with the error).
local wrapped, copies, capped = nil, {}, false
local function watch_receive()
  local f = receive
  if f == wrapped or type(f) ~= "function" then return end
  wrapped = function(msg, ...)
    received = received + 1
    local id = type(msg) == "table" and msg.id ~= nil and tostring(msg.id) or nil
    if id then
      copies[id] = (copies[id] or 0) + 1
      if copies[id] > COPIES then         -- counted, but not passed on: see COPIES
        if not capped then
          log.warning("harness: more than " .. COPIES .. " copies of message " .. id .. " reached this node: "
                      .. "later copies are counted but not passed to receive")
        end
        capped = true
        return
      end
    end
    local res = {pcall(f, msg, ...)}
    if not res[1] then
      raised = raised + 1
      if raised <= 3 then log.error("receive raised: " .. tostring(res[2])) end
      error(res[2], 0)
    end
    return unpack(res, 2, table.maxn(res))
  end
  receive = wrapped
end

events.thread(function()                     -- runs once the submission has loaded
  if deliver ~= grader_deliver then
    complain("the submission defines deliver(msg): it is the grader's, call it and do not define it")
    deliver = grader_deliver
  end
  watch_receive()
  while true do
    events.sleep(FLUSH)
    watch_receive()
    if received + deliveries + duplicates > 0 then
      metrics.observe("gossip_traffic", received, {delivered = deliveries, duplicates = duplicates})
      received, deliveries, duplicates = 0, 0, 0
    end
  end
end)

local count = 0
for i, entry in ipairs(SCHEDULE) do
  if (entry[2] - 1) % math.max(1, #job.nodes) + 1 == job.position then
    events.thread(function()
      events.sleep(entry[1] - (misc.time() - start))
      watch_receive()
      count = count + 1
      local msg = {id = job.position .. ":" .. count, sent = misc.time(), body = "broadcast #" .. i}
      own[msg.id] = true
      if type(broadcast) ~= "function" then
        complain("the global function broadcast(msg) is missing: nothing to broadcast")
        return
      end
      metrics.observe("broadcast_sent", 1, {msg = msg.id})
      local ok, err = pcall(broadcast, msg)
      if not ok then log.error("broadcast raised: " .. tostring(err)) end
    end)
  end
end
