--[[
BEGIN SPLAY RESOURCES RESERVATION
nb_splayds 60
max_time 180
END SPLAY RESOURCES RESERVATION
]]
-- Chord under churn: the reference of the "massive failure" lab (assignments/chord-churn).
-- The SPLAY paper's ring (listings 1-3) made to survive failures: each node keeps its R next
-- nodes (a successor list), stabilize skips the dead ones, and a lookup that meets a dead
-- finger forgets it and tries the next closest one. A node joins when the scenario starts it
-- (through the first node of job.nodes that answers), and from LOOKUP_FROM s after its start
-- looks up a random key every LOOKUP_EVERY s until the end. It reports
--   metrics.observe("lookup_latency", s, {hops, key, owner})   an answer whose owner answers,
--   metrics.count("lookup_failed", 1)                           no answer, or a dead owner
-- (with a warning "lookup key=K failed: why"), and logs "ring id=ID" at its start, so that
-- check.py can also tell a live but wrong owner from the scenario's membership.
require "splay.base"
rpc = require "splay.rpc"
local metrics = require "splay.metrics"
between, call, ping = misc.between_c, rpc.call, rpc.ping

m, R = 24, 4                         -- identifiers of m bits; successors kept
FAST, PERIOD, FAST_FOR = 1, 5, 30    -- maintenance every FAST s while the ring forms, then every
                                     -- PERIOD s (the paper's) from FAST_FOR s after the start on
LOOKUP_FROM, LOOKUP_EVERY = 40, 2
TIMEOUT, TRIES, MAX_HOPS = 2, 3, 32  -- per RPC; fingers tried per hop; route length

-- State: n = this node {ip, port, id}; succs = the R nodes that follow n on the ring (succs[1]
-- is the successor); finger[i] = the successor of n.id + 2^(i-1), i = 2..m; predecessor.
function successor()        -- if the list emptied, the nearest finger until stabilize repairs it
  if succs[1] then return succs[1] end
  for i = 2, m do if finger[i] then return finger[i] end end
  return n
end

-- A node that did not answer leaves every table
function drop(x)
  for i = 2, m do if finger[i] and finger[i].id == x.id then finger[i] = nil end end
  for i = #succs, 1, -1 do if succs[i].id == x.id then table.remove(succs, i) end end
  if predecessor and predecessor.id == x.id then predecessor = nil end
end

-- Lookup (listing 2), recursive, with a hop counter: returns the key's owner and the number of
-- forwards, or false when the route is lost. A forward that fails drops that node and tries the
-- next closest one, TRIES times at most.
function find_successor(id, hops)
  hops = hops or 0
  if between(id, n.id, successor().id, false, true) then return successor(), hops end
  if hops >= MAX_HOPS then return false, hops end
  for _ = 1, TRIES do
    local next_hop = closest_preceding_node(id)
    if next_hop == n then return successor(), hops end  -- nobody closer known: our best guess
    local owner, h = call(next_hop, {'find_successor', id, hops + 1}, TIMEOUT)
    if owner ~= nil then return owner, h end            -- an answer, or false: lost further on
    drop(next_hop)                                      -- dead (or too slow): forget it
  end
  return false, hops
end
function closest_preceding_node(id)                     -- among the fingers and the successors
  local best = n
  local function consider(x) if x and between(x.id, best.id, id, false, false) then best = x end end
  for i = 2, m do consider(finger[i]) end
  for _, s in ipairs(succs) do consider(s) end
  return best
end

-- Construction and maintenance (listing 1, with a successor list)
function state() return {pred = predecessor, succs = succs} end
function join(n0)
  predecessor = nil
  local s = call(n0, {'find_successor', n.id}, TIMEOUT)
  if not s then return false end
  succs = {s}
  call(s, {'notify', n}, TIMEOUT)
  return true
end
function stabilize()
  local st
  while succs[1] and not st do                          -- the first successor that answers
    st = call(succs[1], 'state', TIMEOUT)
    if not st then table.remove(succs, 1) end
  end
  if not st then       -- all R are gone (or alone): the nearest live finger, else the predecessor
    for i = 2, m + 1 do
      local y = finger[i]
      if i > m then y = predecessor end
      st = y and call(y, 'state', TIMEOUT)
      if st then succs = {y}; break end
    end
    if not st then return end
  end
  local s, x = succs[1], st.pred
  while x and x.id ~= n.id and between(x.id, n.id, s.id, false, false) do
    local xst = call(x, 'state', TIMEOUT)               -- a closer successor, if it is alive (and
    if not xst then break end                           -- its predecessor, if closer still: after
    s, st, x = x, xst, xst.pred                         -- a fallback, the walk back is one round)
  end
  succs = {s}                                           -- s, then s's own successors
  for _, y in ipairs(st.succs or {}) do
    if #succs >= R or y.id == n.id then break end
    if y.id ~= succs[#succs].id then succs[#succs + 1] = y end
  end
  if s.id ~= n.id then call(s, {'notify', n}, TIMEOUT) end
end
function notify(n0)
  if n0.id ~= n.id and (not predecessor or between(n0.id, predecessor.id, n.id, false, false)) then
    predecessor = n0
  end
end
function fix_fingers()
  refresh = refresh % m + 1
  if refresh == 1 then refresh = 2 end
  local f = find_successor((n.id + 2^(refresh - 1)) % 2^m)
  if f then finger[refresh] = f.id ~= n.id and f or nil end  -- a lost route keeps the old one
end
function check_predecessor()
  if predecessor and not ping(predecessor, TIMEOUT) then predecessor = nil end
end

-- Initialisation (listing 3): join through the first node of job.nodes that answers
n = job.me
n.id = math.random(1, 2^m - 1)
predecessor, succs, finger, refresh = nil, {}, {}, 1
rpc.server(n.port)
local start = misc.time()
log.info("ring id=" .. n.id)
local function every(f)
  events.thread(function()
    while true do
      f()
      events.sleep(misc.time() - start < FAST_FOR and FAST or PERIOD)
    end
  end)
end
events.thread(function()
  if job.position ~= 1 then
    local joined = false
    for _, n0 in ipairs(job.nodes) do
      if n0.port ~= n.port or n0.ip ~= n.ip then joined = join(n0) end
      if joined then break end
    end
    if not joined then log.warning("nobody answered: a ring of my own") end
  end
  every(stabilize)
  every(check_predecessor)
  every(fix_fingers)
end)

-- The measurement: a random key every LOOKUP_EVERY s, until the end
events.thread(function()
  events.sleep(LOOKUP_FROM + math.random() * LOOKUP_EVERY)
  while true do
    local key = math.random(0, 2^m - 1)
    local t0 = misc.time()
    local owner, hops = find_successor(key)
    local latency = misc.time() - t0
    local why = not owner and "no route" or not ping(owner, TIMEOUT) and "owner " .. owner.id .. " is dead"
    if why then
      metrics.count("lookup_failed", 1)
      log.warning("lookup key=" .. key .. " failed: " .. why)
    else
      metrics.observe("lookup_latency", latency, {hops = hops, key = key, owner = owner.id})
    end
    events.sleep(math.max(0, t0 + LOOKUP_EVERY - misc.time()))
  end
end)
