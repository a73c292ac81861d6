--[[
BEGIN SPLAY RESOURCES RESERVATION
nb_splayds 200
list_type head
list_size 0
max_time 80
END SPLAY RESOURCES RESERVATION
]]
-- Recursive or iterative? DHash++'s section 4.2 (seed 002) on a static Chord ring.
-- Every node looks up LOOKUPS random keys at random instants of a WINDOW s window, each key in
-- both styles at once, and reports metrics.observe("lookup_latency", seconds,
-- {style = "recursive" | "iterative", hops = h, key = key, owner = owner_id}):
--   iterative: the origin asks each hop in turn for the next one (a round trip per hop);
--   recursive: each hop forwards the request to the next (one way per hop) and the key's
--     predecessor sends the owner straight back to the origin (one more one-way trip).
-- h hops thus cost 2h one-way delays iterative and h + 1 recursive.
--
-- The ring is static (DHash++ measures a static network): every node draws the ids of all
-- positions from the same seed and builds its fingers locally, with no join or stabilisation
-- traffic. Messages are UDP datagrams between the nodes' own ports, one per one-way trip, so
-- both styles pay the network model's delays and nothing else: splay.rpc's TCP would add a
-- connection set-up round trip to every call to a node not called in the last 2 s (most of an
-- iterative route), and splay.urpc's replies go to an ephemeral port that the model cannot
-- attribute to a node (docs/network.md), so they would travel undelayed.
require "splay.base"
local metrics = require "splay.metrics"
local between = misc.between_c
local floor, concat = math.floor, table.concat

local M = 24                                     -- identifiers of M bits
local RING_SEED = 4242                           -- the same on every node: the same ring
local SETTLE, WINDOW, LOOKUPS, TIMEOUT, DRAIN = 10, 30, 10, 10, 20

local nodes = job.nodes                          -- every node of the job (list_size 0)

-- The ring: me = {pos, id}, finger[i] = successor of me.id + 2^(i-1); finger[1] is the successor.
local function build_ring()
  local n = #nodes
  local own_seed = math.random(1, 2147483646)   -- this node's draws stay its own after the ring
  math.randomseed(RING_SEED)
  local id_of, pos_of, ids = {}, {}, {}
  for pos = 1, n do
    local id
    repeat id = math.random(0, 2 ^ M - 1) until not pos_of[id]   -- ids are distinct
    id_of[pos], pos_of[id], ids[pos] = id, pos, id
  end
  math.randomseed(own_seed)
  table.sort(ids)
  local function successor(key)                  -- the first id >= key, around the ring
    if key > ids[n] then return ids[1] end
    local lo, hi = 1, n
    while lo < hi do
      local mid = floor((lo + hi) / 2)
      if ids[mid] >= key then hi = mid else lo = mid + 1 end
    end
    return ids[lo]
  end
  local me = { pos = job.position, id = id_of[job.position] }
  local finger = {}
  for i = 1, M do
    local id = successor((me.id + 2 ^ (i - 1)) % 2 ^ M)
    finger[i] = { pos = pos_of[id], id = id }
  end
  return me, finger
end

local me, finger = build_ring()
local succ = finger[1]

local function owned_by_successor(key) return between(key, me.id, succ.id, false, true) end

local function closest_preceding_node(key)
  for i = M, 1, -1 do
    if between(finger[i].id, me.id, key, false, false) then return finger[i] end
  end
  return me
end

-- Messages: one datagram of space-separated words to the node at a position.
local udp = socket.udp()
assert(udp:setsockname("*", job.me.port))
local function send(pos, ...)
  local node = nodes[pos]
  udp:sendto(concat({ ... }, " "), node.ip, node.port)
end

local next_request = 0
local function request_id()
  next_request = next_request + 1
  return next_request
end

local handle = {}
-- iterative step, asked by the origin: "next request key origin"
function handle.next(request, key, origin)
  if owned_by_successor(key) then
    send(origin, "hop", request, 1, succ.pos, succ.id)
  else
    local hop = closest_preceding_node(key)
    send(origin, "hop", request, 0, hop.pos, hop.id)
  end
end
-- the answer to "next": is that node the owner, or the next hop to ask
function handle.hop(request, done, pos, id)
  events.fire("request " .. request, done == 1, { pos = pos, id = id })
end
-- recursive step: "find request key origin hops"; the predecessor answers the origin directly
function handle.find(request, key, origin, hops)
  if owned_by_successor(key) then
    send(origin, "found", request, succ.pos, succ.id, hops)
  else
    send(closest_preceding_node(key).pos, "find", request, key, origin, hops + 1)
  end
end
function handle.found(request, pos, id, hops)
  events.fire("request " .. request, { pos = pos, id = id }, hops)
end

events.thread(function()
  while true do
    local data, err = udp:receive(8192)
    if not data then
      if err ~= "timeout" then break end
    else
      local words = {}
      for w in data:gmatch("%S+") do words[#words + 1] = tonumber(w) or w end
      local handler = handle[words[1]]
      if handler then handler(unpack(words, 2)) end
    end
  end
end)

-- The two lookups -> owner {pos, id}, hops | nil (no answer in TIMEOUT s)
local function iterative(key)
  if owned_by_successor(key) then return succ, 0 end
  local ask, hops = closest_preceding_node(key), 0
  while true do
    hops = hops + 1
    local request = request_id()
    send(ask.pos, "next", request, key, me.pos)
    local ok, done, node = events.wait("request " .. request, TIMEOUT)
    if not ok then return nil end
    if done then return node, hops end
    ask = node
  end
end

local function recursive(key)
  if owned_by_successor(key) then return succ, 0 end
  local request = request_id()
  send(closest_preceding_node(key).pos, "find", request, key, me.pos, 1)
  local ok, owner, hops = events.wait("request " .. request, TIMEOUT)
  if not ok then return nil end
  return owner, hops
end

local function measure(style, lookup, key)
  local t0 = misc.time()
  local owner, hops = lookup(key)
  if owner then
    metrics.observe("lookup_latency", misc.time() - t0, { style = style, hops = hops, key = key, owner = owner.id })
  else
    log.warning(style .. " lookup key=" .. key .. " failed")
  end
end

-- The measurement: both styles of the same key at the same instant (the model has no queues:
-- they do not slow each other), then serve the others' late lookups DRAIN s more.
events.thread(function()
  log.info(string.format("ring id=%d succ=%d", me.id, succ.id))
  local start = misc.time()
  local at = {}                                  -- random instants in the window, in order
  for i = 1, LOOKUPS do at[i] = SETTLE + math.random() * WINDOW end
  table.sort(at)
  for i = 1, LOOKUPS do
    events.sleep(at[i] - (misc.time() - start))
    local key = math.random(0, 2 ^ M - 1)
    events.thread(function() measure("recursive", recursive, key) end)
    events.thread(function() measure("iterative", iterative, key) end)
  end
  events.sleep(SETTLE + WINDOW + DRAIN - (misc.time() - start))
  events.exit()
end)
