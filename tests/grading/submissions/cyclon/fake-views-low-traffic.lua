-- CHEAT: views that no shuffle ever made, with the traffic of a shuffle: one call a round.
-- exploit: every node computes the same fixed permutation of the job's positions and takes as
-- its view the next C nodes after itself that it does not know to be dead; every 5 s it sends
-- one call named on_shuffle (with a shuffle-sized payload, answered by nothing) to the next
-- entry of its view in turn and drops the entry when the call fails, replacing it by the next
-- node of the order (tried at once): in-degrees are all C, the dead leave within C rounds, and the messages per
-- node are those of Cyclon (one exchange a round), yet no entry is ever exchanged.
-- honest work: none of Cyclon (no aging, no oldest neighbour, no exchange, no merge).
-- today: 100/100
-- at most: 30
require "splay.base"
rpc = require "splay.rpc"

C = 10
L = 5
PERIOD = 5
TIMEOUT = 2

me = { ip = job.me.ip, port = job.me.port }
view = {}
local dead = {}                 -- position -> true: a call to it failed
local order, at = {}, nil       -- the permutation every node computes, and our place in it
local turn = 0

local function permutation(count)
  local state = 20250101
  local function draw(k) state = state * 16807 % 2147483647; return state % k + 1 end
  local p = {}
  for i = 1, count do p[i] = i end
  for i = count, 2, -1 do
    local j = draw(i)
    p[i], p[j] = p[j], p[i]
  end
  return p
end

local function rebuild()
  local list, positions = {}, {}
  for step = 1, #order - 1 do
    local k = order[(at + step - 1) % #order + 1]
    if not dead[k] then
      local node = job.nodes[k]
      list[#list + 1] = { peer = { ip = node.ip, port = node.port }, age = 0 }
      positions[#positions + 1] = k
      if #list >= C then break end
    end
  end
  view = list
  return positions
end

-- looks like a shuffle on the wire; does nothing
function on_shuffle(received) return {} end
function oldest() return 1 end
function merge() end

function shuffle()
  local positions = rebuild()
  if #positions == 0 then return end
  turn = turn % #positions + 1
  local k = positions[turn]
  local sent = {}
  for i = 1, L - 1 do sent[i] = view[(turn + i - 1) % #view + 1] end
  sent[L] = { peer = me, age = 0 }
  if rpc.acall(job.nodes[k], { "on_shuffle", sent }, TIMEOUT) then return end
  -- a dead entry: its replacement (the next node of the order) is tried at once, and so on
  dead[k] = true
  for _ = 1, 5 do
    positions = rebuild()
    local last = positions[#positions]
    if not last or rpc.acall(job.nodes[last], { "on_shuffle", sent }, TIMEOUT) then break end
    dead[last] = true
  end
end

-- Initialisation: the introducers as given, then the computed views
for i = 1, math.min(3, #job.nodes) do
  local n = job.nodes[i]
  if n.ip ~= me.ip or n.port ~= me.port then view[#view + 1] = { peer = { ip = n.ip, port = n.port }, age = 0 } end
end
order = permutation(#job.nodes)
for i, k in ipairs(order) do if k == job.position then at = i end end
rpc.server(me.port)
events.thread(function()
  events.sleep(math.random() * PERIOD)
  rebuild()
  events.periodic(PERIOD, shuffle)
end)
