--[[
BEGIN SPLAY RESOURCES RESERVATION
nb_splayds 100
max_time 150
END SPLAY RESOURCES RESERVATION
]]
-- Chord over an emulated wide-area network: the reference of the "lookup latency" lab.
-- The ring is the SPLAY paper's (listings 1-3); each lookup counts its hops and reports
-- metrics.observe("lookup_latency", seconds, {hops = h}), which the job page draws as a
-- CDF and a hop histogram. Timeline: node k joins at JOIN_GAP * k; the ring then settles;
-- from LOOKUP_AT every node runs LOOKUPS lookups of random keys spread over WINDOW seconds.
require "splay.base"
rpc = require "splay.rpc"
local metrics = require "splay.metrics"
between, call, ping = misc.between_c, rpc.call, rpc.ping

-- Maintenance every PERIOD s while the ring forms (joins JOIN_GAP s apart), then every
-- STEADY_PERIOD s (the paper's 5 s) from 3/4 of SETTLE on, when the ring is built.
PERIOD, STEADY_PERIOD, JOIN_GAP, SETTLE, WINDOW, LOOKUPS = 1, 5, 0.25, 40, 30, 10
m = 24                                           -- identifiers of m bits

-- Construction and maintenance (listing 1)
function join(n0)
  predecessor = nil
  local s = call(n0, {'find_successor', n.id})
  while not s do                                 -- a node on the route at its socket limit
    events.sleep(PERIOD)                         -- refuses: try again (thousands joining at once)
    s = call(n0, {'find_successor', n.id})
  end
  finger[1] = s
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
function fix_fingers()
  refresh = (refresh % m) + 1
  local f = find_successor((n.id + 2^(refresh - 1)) % 2^m)
  if f or refresh > 1 then finger[refresh] = f end  -- a failed lookup keeps the successor
end
function check_predecessor()
  if predecessor and not ping(predecessor) then predecessor = nil end
end

-- Lookup (listing 2), recursive, with a hop counter: returns the key's owner and the number of
-- times the request was forwarded.
function find_successor(id, hops)
  hops = hops or 0
  if between(id, n.id, finger[1].id, false, true) then return finger[1], hops end
  return call(closest_preceding_node(id), {'find_successor', id, hops + 1})
end
function closest_preceding_node(id)
  for i = m, 1, -1 do
    if finger[i] and between(finger[i].id, n.id, id, false, false) then return finger[i] end
  end
  return n
end

-- Initialisation (listing 3)
n = job.me
n.id = math.random(1, 2^m)
predecessor, finger, refresh = nil, {[1] = n}, 0
rpc.server(n.port)
local start = misc.time()
local built_at = JOIN_GAP * #job.nodes + 0.75 * SETTLE
local function every(f)                          -- events.periodic, with the period above
  events.thread(function()
    local next_at = misc.time()
    while true do
      f()
      next_at = math.max(next_at + (misc.time() - start < built_at and PERIOD or STEADY_PERIOD), misc.time())
      events.sleep(next_at - misc.time())
    end
  end)
end
events.thread(function()
  events.sleep(JOIN_GAP * job.position)
  if job.position > 1 then join(job.nodes[1]) end
  every(stabilize)                               -- periodically check successor, ...
  every(check_predecessor)                       -- predecessor, ...
  every(fix_fingers)                             -- and fingers
end)

-- The measurement
events.thread(function()
  events.sleep(JOIN_GAP * #job.nodes + SETTLE)
  log.info(string.format("ring id=%d succ=%d", n.id, finger[1].id))
  local at = {}                                  -- random instants in the window, in order
  for i = 1, LOOKUPS do at[i] = math.random() * WINDOW end
  table.sort(at)
  local start = misc.time()
  for i = 1, LOOKUPS do
    events.sleep(at[i] - (misc.time() - start))
    local key = math.random(0, 2^m - 1)
    local t0 = misc.time()
    local owner, hops = find_successor(key)
    if owner then
      metrics.observe("lookup_latency", misc.time() - t0, {hops = hops, key = key, owner = owner.id})
    else
      log.warning("lookup key=" .. key .. " failed")
    end
  end
  -- Others may still route through us: nodes start up to ~10 s apart on a loaded machine (1,000
  -- instances), so a node that left 5 s after its own window failed the late nodes' lookups.
  events.sleep(WINDOW + 15 - (misc.time() - start))
  events.exit()
end)
