-- CHEAT: linear routing laundered through worker threads, reporting 1 hop.
-- exploit: each forward of a lookup is queued and sent by a worker thread that existed before
-- the lookup (woken by events.fire), and the owner comes back to the origin by a separate call,
-- so a causal operation id carried by rpc calls and inherited by new threads stops at the
-- origin: a trace attributes 0 messages to the operation; the app reports hops = 1.
-- honest work: a right ring by join/stabilize/notify/check_predecessor and right (slow) lookups
-- along the successors; no fingers (the linear-routing variant's work, which scores 74.4).
-- today: 89.4/100
-- at most: 75
require "splay.base"
rpc = require "splay.rpc"
between, call, ping = misc.between_c, rpc.call, rpc.ping

m = 24
PERIOD = 1

-- the weak part: a ring kept by stabilisation, no fingers, lookups walk the successors
function join(n0)
  predecessor = nil
  finger[1] = call(n0, {'find_successor', n.id})
  call(finger[1], {'notify', n})
end
function stabilize()
  local x = call(finger[1], 'predecessor')
  if x and between(x.id, n.id, finger[1].id, false, false) then finger[1] = x end
  call(finger[1], {'notify', n})
end
function notify(n0)
  if not predecessor or between(n0.id, predecessor.id, n.id, false, false) then predecessor = n0 end
end
function fix_fingers() end                     -- no fingers
function check_predecessor()
  if predecessor and not ping(predecessor) then predecessor = nil end
end
-- Lookups walk the successors, but by hand-offs: a request is queued on a node and a worker
-- thread that exists since the start forwards it (so the forwarding thread never belongs to the
-- operation that asked); the owner is sent back to the origin by another call.
local inbox, waiting, counter = {}, {}, 0

function route(req)                             -- served: queue it, answer at once
  inbox[#inbox + 1] = req
  events.fire("chord-work")
  return true
end

function answer(tag, owner, hops)               -- served on the origin
  if waiting[tag] then waiting[tag] = { owner, hops }; events.fire("chord-done-" .. tag) end
  return true
end

local function handle(req)
  if between(req.key, n.id, finger[1].id, false, true) then
    call(req.origin, { 'answer', req.tag, finger[1], req.hops })
  else
    call(finger[1], { 'route', { key = req.key, hops = req.hops + 1, origin = req.origin, tag = req.tag } })
  end
end

local function worker()
  while true do
    if #inbox == 0 then events.wait("chord-work") end
    local req = table.remove(inbox, 1)
    if req then events.thread(function() handle(req) end) end
  end
end

function find_successor(id, hops)
  if between(id, n.id, finger[1].id, false, true) then return finger[1], hops or 0 end
  counter = counter + 1
  local tag = job.position .. ":" .. counter
  waiting[tag] = true
  inbox[#inbox + 1] = { key = id, hops = 0, origin = n, tag = tag }   -- our own worker sends it
  events.fire("chord-work")
  events.wait("chord-done-" .. tag, 60)
  local r = waiting[tag]
  waiting[tag] = nil
  if type(r) ~= "table" then return nil end
  return r[1], 1                                -- and the caller is told 1 hop
end
function closest_preceding_node(id) return finger[1] end

-- Initialisation (listing 3): given, kept.
n = job.me
n.id = math.random(1, 2^m)
predecessor, finger, refresh = nil, {[1] = n}, 0
rpc.server(n.port)
events.thread(worker)
events.thread(function()
  events.sleep(0.5 * job.position)
  if job.position > 1 then join(job.nodes[1]) end
  events.periodic(stabilize, PERIOD)
  events.periodic(check_predecessor, PERIOD)
  events.periodic(fix_fingers, PERIOD)
end)
