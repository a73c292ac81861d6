-- Buggy variant (closest_preceding_node only ever uses the successor: lookups walk the ring): the tests expect the checks named in tests/grading.
-- Chord (the SPLAY paper, listings 1-3): the reference solution. Instructors only.
require "splay.base"
rpc = require "splay.rpc"
between, call, ping = misc.between_c, rpc.call, rpc.ping

m = 24                                           -- identifiers of m bits
PERIOD = 1                                       -- seconds between two maintenance rounds

-- Construction and maintenance (listing 1)
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
function fix_fingers()
  refresh = (refresh % m) + 1
  finger[refresh] = find_successor((n.id + 2^(refresh - 1)) % 2^m)
end
function check_predecessor()
  if predecessor and not ping(predecessor) then predecessor = nil end
end

-- Lookup (listing 2), recursive: returns the key's owner and how many times the request was
-- forwarded.
function find_successor(id, hops)
  hops = hops or 0
  if between(id, n.id, finger[1].id, false, true) then return finger[1], hops end
  return call(closest_preceding_node(id), {'find_successor', id, hops + 1})
end
function closest_preceding_node(id)
  for i = m, 1, -1 do
    if i == 1 and between(finger[i].id, n.id, id, false, false) then return finger[i] end   -- BUG: successor only
  end
  return n
end

-- Initialisation (listing 3)
n = job.me
n.id = math.random(1, 2^m)
predecessor, finger, refresh = nil, {[1] = n}, 0
rpc.server(n.port)
events.thread(function()
  events.sleep(0.5 * job.position)               -- the nodes join one after the other
  if job.position > 1 then join(job.nodes[1]) end
  events.periodic(stabilize, PERIOD)
  events.periodic(check_predecessor, PERIOD)
  events.periodic(fix_fingers, PERIOD)
end)
