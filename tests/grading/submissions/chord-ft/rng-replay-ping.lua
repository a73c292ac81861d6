-- CHEAT: every ring id computed without a message by replaying the other nodes' random draws;
-- liveness by pinging the next nodes of that known ring.
-- exploit: a node's math.random is seeded from the job's seed and its position only, and its
-- ring id is its first draw: each node finds the job's seed from its own id, replays every
-- position's draw and knows the whole ring; each second it pings the nodes after it in ring
-- order until R answer (its successor list) and the nodes before it until one answers (its
-- predecessor), a traffic that looks like successor-list maintenance; a lookup makes one call,
-- to the live node that precedes the key, which answers its successor.
-- honest work: none of Chord (no join, no stabilisation through predecessors, no fingers, no
-- routing); liveness checks by ping.
-- today: 100/100
-- at most: 45
-- seeds: secret (graded as an installation grades: the spec's seeds mixed with its secret)
require "splay.base"
rpc = require "splay.rpc"
between = misc.between_c

m, R = 24, 4
PERIOD = 1
TIMEOUT = 2
ring = {}                       -- every node of the job, sorted by id
local me_at                     -- our index in ring

local function id_drawn(seed, position)
  math.randomseed((seed * 7919 + position * 104729) % 2147483647)
  return math.random(0, 2^m - 1)
end

local function compute_ring()
  local seed
  for s = 0, 5000 do
    if id_drawn(s, job.position) == n.id then seed = s; break end
  end
  if seed then
    for p, node in ipairs(job.nodes) do
      ring[#ring + 1] = { ip = node.ip, port = node.port, id = id_drawn(seed, p) }
    end
    table.sort(ring, function(a, b) return a.id < b.id end)
    for i, x in ipairs(ring) do if x.id == n.id then me_at = i end end
  end
  math.randomseed(n.id + job.position)
end

local function at(i) return ring[(i - 1) % #ring + 1] end
local function alive(x) return x.id == n.id or rpc.ping(x, TIMEOUT) ~= nil end

-- the maintenance: ping forward for R live successors, backward for a live predecessor
function stabilize()
  if not me_at then return end
  local list = {}
  for k = 1, #ring - 1 do
    local x = at(me_at + k)
    if alive(x) then list[#list + 1] = x; if #list >= R then break end end
  end
  succs = list
  finger[1] = list[1] or n
  local pred
  for k = 1, #ring - 1 do
    local x = at(me_at - k)
    if alive(x) then pred = x; break end
  end
  predecessor = pred
end

-- the live node that precedes the key answers its successor: one call
function find_successor(id, hops)
  hops = hops or 0
  if not me_at then return false end
  if between(id, n.id, finger[1].id, false, true) or finger[1].id == n.id then return finger[1], hops end
  if hops > 0 then                              -- asked by an origin that thinks we precede id
    return false, hops
  end
  local i = #ring                               -- index of the last node before id
  for k = 1, #ring do if ring[k].id >= id then i = k - 1; break end end
  for k = 0, #ring - 1 do
    local x = at(i - k)
    if x.id == n.id then return finger[1], hops end
    local ok, r = rpc.acall(x, { 'find_successor', id, hops + 1 }, TIMEOUT)
    if ok and type(r[1]) == "table" then return r[1], r[2] end
  end
  return false, hops
end

function join() end
function notify() end
function fix_fingers() end
function check_predecessor() end
function closest_preceding_node() return n end

n = job.me
n.id = math.random(0, 2^m - 1)
predecessor, succs, finger, refresh = nil, {}, {[1] = n}, 1
compute_ring()
rpc.server(n.port)
events.thread(function()
  events.periodic(stabilize, PERIOD)
end)
