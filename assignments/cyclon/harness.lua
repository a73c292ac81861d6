-- The Cyclon assignment's harness: runs in every node before the submission (docs/grading.md).
-- It never changes the protocol: every EVERY seconds of the clock (the same instants on every
-- node) it reads the submission's view (get_view() when defined, else the global `view`) and
-- records the metric `view`: value = the number of entries, fields view = the positions in
-- job.nodes of the peers ("3,17,..."; -1: an address that is no node of the job) and round =
-- the instant's number.
local events = require "splay.events"
local misc = require "splay.misc"
local log = require "splay.log"
local metrics = require "splay.metrics"

local EVERY = 10

local where = {}
for i, n in ipairs(job.nodes) do where[tostring(n.ip) .. ":" .. tostring(n.port)] = i end

local function position(peer)
  if type(peer) ~= "table" then return -1 end
  local p = where[tostring(peer.ip) .. ":" .. tostring(peer.port)]
  if p then return p end
  -- job.nodes may be a short list (a descriptor's list_size): nodes of one host have
  -- consecutive ports in the order of their positions
  local port = tonumber(peer.port)
  local k = port and peer.ip == job.me.ip and job.position + port - job.me.port
  return k and k >= 1 and k or -1
end

local function positions(v)
  local out = {}
  for _, e in ipairs(v) do
    out[#out + 1] = position(type(e) == "table" and (e.peer or e) or nil)
  end
  return out
end

events.thread(function()
  local warned, round = false, math.floor(misc.time() / EVERY)
  while true do
    round = round + 1
    events.sleep(round * EVERY - misc.time())
    local ok, v = true, view
    if type(get_view) == "function" then ok, v = pcall(get_view) end
    if ok and type(v) == "table" then
      local p = positions(v)
      metrics.observe("view", #p, { view = table.concat(p, ","), round = round })
    elseif not warned then
      warned = true
      log.warning("harness: no view to sample (keep the global `view`, or define get_view()): "
                  .. (ok and "view is " .. type(v) or tostring(v)))
    end
  end
end)
