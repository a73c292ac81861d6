-- Buggy variant (check_predecessor does nothing: a dead predecessor is never forgotten): the tests expect the checks named in tests/grading.
-- Fault-tolerant Chord (the SPLAY paper's listings 1-3 with the successor lists of Stoica et
-- al.): the reference solution. Instructors only.
require "splay.base"
rpc = require "splay.rpc"
between, call, ping = misc.between_c, rpc.call, rpc.ping

m, R = 24, 4            -- identifiers of m bits; successors kept
PERIOD = 1              -- seconds between two maintenance rounds
TIMEOUT = 2             -- seconds for one exchange with one node (ping, state, notify)
FORWARD_TIMEOUT = 8     -- a forwarded lookup waits for the rest of its route
TRIES, MAX_HOPS = 3, 32 -- next hops tried per node; route length

-- State: n = this node {ip, port, id}; succs = the R nodes that follow n (succs[1] is the
-- successor); finger[1] = succs[1] (n when alone); finger[i] = the successor of n.id + 2^(i-1).
function set_succs(list)
  succs = list
  finger[1] = succs[1] or n
end

-- A node that did not answer leaves every table; with no successor left, the nearest finger
-- stands in until stabilize repairs the list.
function forget(x)
  for i = 2, m do if finger[i] and finger[i].id == x.id then finger[i] = nil end end
  for i = #succs, 1, -1 do if succs[i].id == x.id then table.remove(succs, i) end end
  if predecessor and predecessor.id == x.id then predecessor = nil end
  finger[1] = succs[1] or n
  if not succs[1] then
    for i = 2, m do if finger[i] then finger[1] = finger[i]; break end end
  end
end

-- Construction and maintenance (listing 1, with a successor list)
function state() return {pred = predecessor, succs = succs} end
function join(n0)
  predecessor = nil
  local s = call(n0, {'find_successor', n.id}, FORWARD_TIMEOUT)
  if not s then return false end
  set_succs({s})
  call(s, {'notify', n}, TIMEOUT)
  return true
end
function stabilize()
  local s, st = nil, nil
  while succs[1] and not st do                    -- the first successor that answers
    s = succs[1]
    st = call(s, 'state', TIMEOUT)
    if not st then forget(s) end
  end
  if not st then                                  -- none left: the nearest live finger, else
    for i = 2, m + 1 do                           -- the predecessor, else we are alone
      local y = i <= m and finger[i] or (i > m and predecessor) or nil
      if y then
        st = call(y, 'state', TIMEOUT)
        if st then s = y; break end
        forget(y)
      end
    end
    if not st then s, st = n, state() end
  end
  local x = st.pred                               -- a closer successor, if it answers (after a
  while x and x.id ~= n.id and between(x.id, n.id, s.id, false, false) do   -- fallback, walk back)
    local xst = call(x, 'state', TIMEOUT)
    if not xst then break end
    s, st, x = x, xst, xst.pred
  end
  if s.id == n.id then set_succs({}) return end
  local list = {s}                                -- s, then s's own successors
  for _, y in ipairs(st.succs or {}) do
    if #list >= R or y.id == n.id then break end
    if y.id ~= list[#list].id then list[#list + 1] = y end
  end
  set_succs(list)
  call(s, {'notify', n}, TIMEOUT)
end
function notify(n0)
  if n0.id ~= n.id and (not predecessor or between(n0.id, predecessor.id, n.id, false, false)) then
    predecessor = n0
  end
end
function fix_fingers()
  refresh = refresh % m + 1
  if refresh == 1 then refresh = 2 end            -- finger[1] is stabilize's business
  local f = find_successor((n.id + 2^(refresh - 1)) % 2^m)
  if f then finger[refresh] = f.id ~= n.id and f or nil end   -- a lost route keeps the old one
end
function check_predecessor()
  -- BUG: the predecessor is never pinged, so a dead one stays
end

-- Lookup (listing 2), recursive: returns the key's owner and how many times the request was
-- forwarded, or false when the route is lost. A next hop that does not answer is forgotten and
-- the next closest one is tried.
function find_successor(id, hops)
  hops = hops or 0
  if between(id, n.id, finger[1].id, false, true) then return finger[1], hops end
  if hops >= MAX_HOPS then return false, hops end
  for _ = 1, TRIES do
    local next_hop = closest_preceding_node(id)
    if next_hop.id == n.id then return finger[1], hops end
    local owner, h = call(next_hop, {'find_successor', id, hops + 1}, FORWARD_TIMEOUT)
    if owner ~= nil then return owner, h end      -- an answer, or false: lost further on
    forget(next_hop)
  end
  return false, hops
end
function closest_preceding_node(id)               -- among the fingers and the successors
  local best = n
  local function consider(x) if x and between(x.id, best.id, id, false, false) then best = x end end
  for i = 1, m do consider(finger[i]) end
  for _, s in ipairs(succs) do consider(s) end
  return best
end

-- Initialisation (listing 3): the scenario starts the nodes; each joins through the first node
-- of job.nodes that answers.
n = job.me
n.id = math.random(0, 2^m - 1)
predecessor, succs, finger, refresh = nil, {}, {[1] = n}, 1
rpc.server(n.port)
events.thread(function()
  if job.position ~= 1 then
    for _, n0 in ipairs(job.nodes) do
      if (n0.ip ~= n.ip or n0.port ~= n.port) and join(n0) then break end
    end
  end
  events.periodic(stabilize, PERIOD)
  events.periodic(check_predecessor, PERIOD)
  events.periodic(fix_fingers, PERIOD)
end)
