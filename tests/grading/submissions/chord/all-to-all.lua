-- CHEAT: all-to-all membership instead of Chord.
-- exploit: every node learns every other node's id by one exchange over job.nodes, sets n,
-- finger[1] and predecessor from the true ring and answers find_successor from its full table
-- with hops = 1, so the ring checks see a perfect ring and the hop check trusts the reported 1.
-- honest work: a correct ring (successor and predecessor) built by an O(N^2) exchange; no join,
-- no stabilisation, no fingers, no Chord routing (no lookup ever leaves the node).
-- today: 100/100
-- at most: 45
require "splay.base"
rpc = require "splay.rpc"

m = 24
members = {}                    -- id -> node: everybody

local function refresh_ring()
  local ids = {}
  for id in pairs(members) do ids[#ids + 1] = id end
  table.sort(ids)
  for i, id in ipairs(ids) do
    if id == n.id then
      finger[1] = members[ids[i % #ids + 1]]
      predecessor = members[ids[(i - 2) % #ids + 1]]
    end
  end
  sorted_ids = ids
end

-- another node introduces itself; we answer with ourselves
function hello(x)
  members[x.id] = x
  refresh_ring()
  return n
end

-- the owner from the full table, "one hop"
function find_successor(id)
  for _, x in ipairs(sorted_ids) do
    if x >= id then return members[x], 1 end
  end
  return members[sorted_ids[1]], 1
end

-- the names of the handout, doing nothing
function join() end
function stabilize() end
function notify() end
function fix_fingers() end
function check_predecessor() end
function closest_preceding_node() return n end

n = job.me
n.id = math.random(1, 2^m)
predecessor, finger, refresh = nil, {[1] = n}, 0
members[n.id] = n
sorted_ids = { n.id }
rpc.server(n.port)
events.thread(function()
  events.sleep(1)
  for _, node in ipairs(job.nodes) do
    if node.ip ~= n.ip or node.port ~= n.port then
      local x = rpc.call(node, { 'hello', n })
      if x then members[x.id] = x end
    end
  end
  refresh_ring()
end)
