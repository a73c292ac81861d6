-- A correct Chord written differently from the reference: its own ring arithmetic (clockwise
-- distances instead of misc.between_c), a list of SUCCS successors refreshed by stabilize from a
-- single `neighbours` call, a routing step that picks the farthest preceding node among the
-- fingers and the successor list, and fingers repaired one per round from precomputed starts.
-- Lookups stay recursive, as the handout asks.
-- honest work: the whole protocol (join, stabilize, notify, check_predecessor, fix_fingers,
-- recursive find_successor with a true hop count); no cheat.
-- today: 100/100
-- at least: 90
require "splay.base"
rpc = require "splay.rpc"

m = 24
RING = 2 ^ m
PERIOD = 1
SUCCS = 3                       -- successors kept besides the fingers

-- ring arithmetic ---------------------------------------------------------------------------
local function cw(a, b) return (b - a) % RING end          -- clockwise distance from a to b

-- x in the open arc (a, b); (a, a) is the whole ring but a
local function in_open(x, a, b)
  if a == b then return x ~= a end
  local d = cw(a, x)
  return d > 0 and d < cw(a, b)
end

-- x in the half-open arc (a, b]; (a, a] is the whole ring
local function in_half_open(x, a, b)
  if a == b then return true end
  local d = cw(a, x)
  return d > 0 and d <= cw(a, b)
end

-- state ---------------------------------------------------------------------------------------
succ_list = {}                  -- the SUCCS nodes after n (succ_list[1] == finger[1] once known)
local starts = {}               -- starts[i] = n.id + 2^(i-1) (mod 2^m), filled at start

local function same(a, b) return a and b and a.id == b.id end

-- what a neighbour asks us for in stabilize
function neighbours()
  return { pred = predecessor, list = succ_list }
end

local function rebuild_list(first, rest)
  local list = { first }
  for _, x in ipairs(rest or {}) do
    if #list >= SUCCS then break end
    if not same(x, n) and not same(x, list[#list]) then list[#list + 1] = x end
  end
  succ_list = list
end

-- construction and maintenance --------------------------------------------------------------
function join(n0)
  predecessor = nil
  local s = rpc.call(n0, { 'find_successor', n.id })
  if s then
    finger[1] = s
    rebuild_list(s)
    rpc.call(s, { 'notify', n })
  end
end

function stabilize()
  local s = finger[1]
  local info
  if same(s, n) then info = neighbours() else info = rpc.call(s, 'neighbours') end
  if type(info) ~= "table" then return end
  local x = info.pred
  if x and in_open(x.id, n.id, s.id) then
    -- x sits between us and our successor: it is our successor now, s comes right after it
    local rest = { s }
    for _, y in ipairs(info.list or {}) do rest[#rest + 1] = y end
    finger[1] = x
    rebuild_list(x, rest)
    s = x
  elseif not same(s, n) then
    rebuild_list(s, info.list)
  end
  if not same(s, n) then rpc.call(s, { 'notify', n }) end
end

function notify(candidate)
  if same(candidate, n) then return end
  if not predecessor or in_open(candidate.id, predecessor.id, n.id) then
    predecessor = candidate
  end
end

function fix_fingers()
  refresh = refresh % m + 1
  local owner = find_successor(starts[refresh])
  if owner then finger[refresh] = owner end
end

function check_predecessor()
  if predecessor and not rpc.ping(predecessor) then predecessor = nil end
end

-- lookups -----------------------------------------------------------------------------------
-- The farthest known node that still precedes id: fingers and successors alike.
function closest_preceding_node(id)
  local best, best_d = n, 0
  local function consider(x)
    if x and in_open(x.id, n.id, id) then
      local d = cw(n.id, x.id)
      if d > best_d then best, best_d = x, d end
    end
  end
  for i = m, 1, -1 do consider(finger[i]) end
  for _, x in ipairs(succ_list) do consider(x) end
  return best
end

-- Recursive: the request travels from node to node, the answer comes back along the path.
function find_successor(id, hops)
  hops = hops or 0
  local s = finger[1]
  if in_half_open(id, n.id, s.id) then return s, hops end
  local next_hop = closest_preceding_node(id)
  if same(next_hop, n) then return s, hops end
  return rpc.call(next_hop, { 'find_successor', id, hops + 1 })
end

-- Initialisation (listing 3): given, kept.
n = job.me
n.id = math.random(1, 2^m)
predecessor, finger, refresh = nil, {[1] = n}, 0
for i = 1, m do starts[i] = (n.id + 2 ^ (i - 1)) % RING end
rpc.server(n.port)
events.thread(function()
  events.sleep(0.5 * job.position)               -- the nodes join one after the other
  if job.position > 1 then join(job.nodes[1]) end
  events.periodic(stabilize, PERIOD)
  events.periodic(check_predecessor, PERIOD)
  events.periodic(fix_fingers, PERIOD)
end)
