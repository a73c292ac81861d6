-- CHEAT: a wasteful gossip whose receive is served unwrapped, through rpc's own settings.
-- exploit: the harness counts messages by wrapping the global receive, but splay.rpc looks the
-- served function up in rpc.settings.env, which the app may replace: a table holding the
-- app's own, unwrapped receive (other names fall through to the globals) makes every incoming
-- copy invisible; one local call of the global receive per broadcast keeps the count above 0.
-- honest work: infect-and-die gossip with a TTL, delivered once, dead peers replaced, but 20
-- pushes per message instead of FANOUT = 6 (fails the message cost without the redirection).
-- today: 100/100
-- at most: 92
require "splay.base"
rpc = require "splay.rpc"

FANOUT = 6
PUSHES = 20                     -- weak: pushes per message, more than FANOUT
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
  for _ = 1, PUSHES do
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
  receive(msg)                                  -- one counted call per message (a no-op: known)
  forward(msg)
end

function receive(msg)
  if type(msg) ~= "table" or msg.id == nil or known[msg.id] then return end
  known[msg.id] = true
  deliver(msg)
  forward(msg)
end


-- the exploit: rpc finds the functions it serves in rpc.settings.env; a table whose receive is
-- ours (not the harness's counting wrapper) and whose other names fall through to the globals
local own_receive = receive
rpc.settings.env = setmetatable({ receive = own_receive }, { __index = _G })

rpc.server(job.me.port)
