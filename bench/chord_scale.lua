-- Scale benchmark app (bench/sandbox.py --scale): the Chord of sandbox/apps/chord.lua (the
-- paper's listings 1-3, recursive lookups) with stabilisation every PERIOD s and one finger
-- refreshed every FINGER_PERIOD s (the paper's 5 s period leaves a ring of concurrent joiners
-- unconverged for minutes; 0.5 s, as apps/chord.lua, overloads 2 cores beyond a few hundred
-- nodes), joins JOIN_GAP s apart, and lookups that count their hops. Timeline (N = #job.nodes):
--   join at JOIN_GAP * position; maintenance as above; from LOOKUP_AT = JOIN_GAP * N +
--   SETTLE on, each node reports its ring state and then runs LOOKUPS lookups at random
--   instants spread over WINDOW s (so that lookups do not all land at once); exit at the end.
-- Records: "ring id=.. succ=.." (info), metric lookup {latency, hops, key, owner}.
require "splay.base"
rpc = require "splay.rpc"
local metrics = require "splay.metrics"
between, call, ping = misc.between_c, rpc.call, rpc.ping

local N = #job.nodes
PERIOD, FINGER_PERIOD, JOIN_GAP, SETTLE, WINDOW, LOOKUPS = 1, 2, 0.25, 60, 30, 5

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
-- find_successor with a hop counter (the paper's, plus `hops`): returns node, hops
function find_successor(id, hops)
  hops = hops or 0
  if between(id, n.id, finger[1].id, false, true) then return finger[1], hops end
  local n0 = closest_preceding_node(id)
  return call(n0, {'find_successor', id, hops + 1})
end
function closest_preceding_node(id)
  for i = m, 1, -1 do
    if finger[i] and between(finger[i].id, n.id, id, false, false) then return finger[i] end
  end
  return n
end

m = 24
n = job.me
n.id = math.random(1, 2^m)
predecessor, finger, refresh = nil, {[1] = n}, 0
rpc.server(n.port)
local start = misc.time()
events.thread(function()
  events.sleep(JOIN_GAP * job.position)
  if job.position > 1 then join(job.nodes[1]) end
  events.periodic(stabilize, PERIOD)
  events.periodic(check_predecessor, PERIOD)
  events.periodic(fix_fingers, FINGER_PERIOD)
end)
events.thread(function()
  local lookup_at = JOIN_GAP * N + SETTLE
  events.sleep(lookup_at - (misc.time() - start))
  log.info(string.format("ring id=%d succ=%d", n.id, finger[1].id))
  local instants = {}
  for i = 1, LOOKUPS do instants[i] = math.random() * WINDOW end
  table.sort(instants)
  local t_base = misc.time()
  for i = 1, LOOKUPS do
    events.sleep(instants[i] - (misc.time() - t_base))
    local key = math.random(0, 2^m - 1)
    local t0 = misc.time()
    local owner, hops = find_successor(key)
    if owner then
      metrics.observe("lookup", misc.time() - t0, {hops = hops, key = key, owner = owner.id})
    else
      metrics.count("lookup_failed")
    end
  end
  events.sleep(WINDOW + 5 - (misc.time() - t_base))
  events.exit()
end)
