--[[
BEGIN SPLAY RESOURCES RESERVATION
nb_splayds 50
list_type head
list_size 1
END SPLAY RESOURCES RESERVATION
]]
-- Chord, as in the SPLAY paper (NSDI'09): Listings 1-3 with the staggered join of section 5.2.
-- Only the parameters (stabilization every 0.5 s, joins 0.1 s apart) and the reporting at the
-- end (ring and lookup records, read by sandbox/tests/test_compat.py) are ours.
require "splay.base"                            -- events, misc, socket (core libraries)
rpc = require "splay.rpc"                       -- rpc (optional library)
local metrics = require "splay.metrics"
between, call, ping = misc.between_c, rpc.call, rpc.ping -- aliases

-- Listing 1: construction and maintenance
function join(n0)                               -- n0: some node in the ring
  predecessor = nil
  finger[1] = call(n0, {'find_successor', n.id})
  call(finger[1], {'notify', n})
end
function stabilize()                            -- periodically verify n's successor
  local x = call(finger[1], 'predecessor')
  if x and between(x.id, n.id, finger[1].id, false, false) then
    finger[1] = x                               -- new successor
  end
  call(finger[1], {'notify', n})
end
function notify(n0)                             -- n0 thinks it might be our predecessor
  if not predecessor or between(n0.id, predecessor.id, n.id, false, false) then
    predecessor = n0                            -- new predecessor
  end
end
function fix_fingers()                          -- refresh fingers
  refresh = (refresh % m) + 1                   -- 1 <= refresh <= m
  finger[refresh] = find_successor((n.id + 2^(refresh - 1)) % 2^m)
end
function check_predecessor()                    -- checks if predecessor has failed
  if predecessor and not ping(predecessor) then
    predecessor = nil
  end
end

-- Listing 2: lookup
function find_successor(id)                     -- ask node to find id's successor
  if between(id, n.id, finger[1].id, false, true) then -- inclusive for second bound
    return finger[1]
  end
  local n0 = closest_preceding_node(id)
  return call(n0, {'find_successor', id})
end
function closest_preceding_node(id)             -- finger preceding id
  for i = m, 1, -1 do
    if finger[i] and between(finger[i].id, n.id, id, false, false) then
      return finger[i]
    end
  end
  return n
end

-- Reporting (ours): ring state, then lookups of random keys with their latency.
function report_ring()
  log.info(string.format("ring id=%d succ=%d pred=%s", n.id, finger[1].id,
    predecessor and tostring(predecessor.id) or "nil"))
end
function lookups(count)
  for _ = 1, count do
    local key = math.random(0, 2^m - 1)
    local t0 = misc.time()
    local owner = find_successor(key)
    local latency = misc.time() - t0
    if owner then
      log.info(string.format("lookup key=%d owner=%d", key, owner.id))
      metrics.observe("lookup_latency", latency)
    else
      log.warning(string.format("lookup key=%d failed", key))
    end
  end
end

-- Listing 3: initialization
timeout = 0.5                                   -- stabilization period (paper: 5)
m = 24                                          -- 2^m nodes and keys: identifiers of m bits
n = job.me                                      -- our node {ip, port, id}
n.id = math.random(1, 2^m)                      -- random position on ring
predecessor = nil                               -- previous node on ring {id, ip, port}
finger = {[1] = n}                              -- finger table with m entries
refresh = 0                                     -- next finger to refresh
n0 = job.nodes[1]                               -- first peer is rendez-vous node
rpc.server(n.port)                              -- start rpc server
events.thread(function()                        -- join chord ring (section 5.2, staggered)
  events.sleep(0.1 * job.position)
  if job.position > 1 then join(n0) end
end)
events.periodic(stabilize, timeout)             -- periodically check successor, ...
events.periodic(check_predecessor, timeout)     -- predecessor, ...
events.periodic(fix_fingers, timeout)           -- and fingers
events.thread(function()
  events.sleep(26)                              -- the ring settled, even on a loaded machine
  report_ring()
  lookups(5)
  events.sleep(4)
  report_ring()
  events.sleep(2)
  events.exit()
end)
events.loop()                                   -- execute main loop
