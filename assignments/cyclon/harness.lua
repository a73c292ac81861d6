-- The Cyclon assignment's harness. The runtime loads it in every node before the submission, in
-- an environment of its own, and hands it the capability h (docs/grading.md, "What the grader
-- trusts"): its records cannot be written, and its functions not replaced, by the submission.
-- It never changes the protocol: every EVERY seconds of the clock (the same instants on every
-- node) it reads the submission's view (get_view() when defined, else the global `view`) and
-- records `view`: value = the number of entries, fields view = the positions in job.nodes of the
-- peers ("3,17,..."; -1: an address that is no node of the job) and round = the instant's
-- number. Whether the nodes really shuffle is the trace's business (messages per node).
local h = ...
local events = require "splay.events"

local EVERY, TIMEOUT = 10, 2
local type, tostring, tonumber, rawget, pcall, ipairs = type, tostring, tonumber, rawget, pcall, ipairs
local floor, concat = math.floor, table.concat

local job = h.job
local where = {}
for i, n in ipairs(job.nodes) do where[tostring(n.ip) .. ":" .. tostring(n.port)] = i end

-- the submission's tables are read raw: no metamethod of theirs runs in the harness
local function position(peer)
  if type(peer) ~= "table" then return -1 end
  local ip, port = rawget(peer, "ip"), tonumber(rawget(peer, "port"))
  local p = where[tostring(ip) .. ":" .. tostring(port)]
  if p then return p end
  -- job.nodes may be a short list (a descriptor's list_size): nodes of one host have
  -- consecutive ports in the order of their positions
  local k = port and ip == job.me.ip and job.position + port - job.me.port
  return k and k >= 1 and k or -1
end

local function positions(v)
  local out = {}
  for i = 1, #v do
    local e = rawget(v, i)
    out[i] = position(type(e) == "table" and (rawget(e, "peer") or e) or nil)
  end
  return out
end

events.thread(function()
  local warned, round = false, floor(h.now() / EVERY)
  while true do
    round = round + 1
    events.sleep(round * EVERY - h.now())
    local ok, v = true, h.global("view")
    local get_view = h.global("get_view")
    -- the submission's get_view runs in a thread of its own: it never holds (or stalls) this one
    if type(get_view) == "function" then ok, v = h.call(TIMEOUT, get_view) end
    local p
    if ok and type(v) == "table" then ok, p = pcall(positions, v) end
    if ok and p then
      h.record("view", #p, { view = concat(p, ","), round = round })
    else
      h.record("view", 0, { view = "", round = round })   -- no view this round: an empty one
      if not warned then
        warned = true
        h.record("harness_error", 1, {text = "no view to sample (keep the global `view`, or define get_view()): "
                 .. (ok and "view is " .. type(v) or (type(v) == "string" and v or "get_view raised"))})
      end
    end
  end
end)
