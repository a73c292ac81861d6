-- Buggy variant (receive delivers a message once but forwards every copy it gets: only the TTL stops the copies): the tests expect the checks named in tests/grading.
-- Epidemic broadcast (infect-and-die push gossip): the reference solution. Instructors only.
require "splay.base"
rpc = require "splay.rpc"

FANOUT = 6        -- peers a node pushes a new message to
TTL = 6           -- hops a message may still travel when its origin sends it
TIMEOUT = 5       -- seconds a push may take before the peer counts as dead

seen = {}         -- message id -> true: the messages this node already has

-- Every node of the job but this one.
function peers()
  local list = {}
  for _, node in ipairs(job.nodes) do
    if node.ip ~= job.me.ip or node.port ~= job.me.port then list[#list + 1] = node end
  end
  return list
end

-- Push msg, one hop further, to FANOUT random peers; a push that fails (a dead peer) goes to
-- another random peer instead, until FANOUT pushes succeeded or no peer is left.
function forward(msg)
  if msg.ttl <= 0 then return end
  local copy = {id = msg.id, sent = msg.sent, body = msg.body, ttl = msg.ttl - 1}
  local candidates, next_one = misc.shuffle(peers()), 0
  for _ = 1, FANOUT do
    events.thread(function()
      while next_one < #candidates do
        next_one = next_one + 1
        if rpc.acall(candidates[next_one], {'receive', copy}, TIMEOUT) then return end
      end
    end)
  end
end

-- The harness calls broadcast(msg) on the origin: msg = {id, sent, body}.
function broadcast(msg)
  seen[msg.id] = true
  msg.ttl = TTL
  forward(msg)
end

-- Other nodes push messages here (rpc.call(node, {'receive', msg})).
function receive(msg)
  if not seen[msg.id] then
    seen[msg.id] = true
    deliver(msg)
  end
  forward(msg)               -- BUG: every copy is pushed on, not only the first
end

rpc.server(job.me.port)
