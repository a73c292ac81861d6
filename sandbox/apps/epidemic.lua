--[[
BEGIN SPLAY RESOURCES RESERVATION
nb_splayds 40
list_type head
list_size 0
END SPLAY RESOURCES RESERVATION
]]
-- Epidemic broadcast over UDP RPC (splay.urpc): node 1 starts a rumor; every node that learns
-- it pushes it to `fanout` random peers per round for `rounds` rounds (push gossip).
require "splay.base"
urpc = require "splay.urpc"
local metrics = require "splay.metrics"

fanout, rounds, period = 3, 10, 0.2
seen = {}
others = {}
for i, n in ipairs(job.nodes) do
  if i ~= job.position then others[#others + 1] = n end
end

function gossip(id, hops)
  if seen[id] then return false end
  seen[id] = hops
  log.info("received " .. id .. " hops=" .. hops)
  metrics.observe("epidemic_hops", hops)
  events.thread(function()
    for _ = 1, rounds do
      for _, peer in ipairs(misc.random_pick(others, fanout)) do
        events.thread(function() urpc.call(peer, { "gossip", id, hops + 1 }, 1) end)
      end
      events.sleep(period)
    end
  end)
  return true
end

urpc.server(job.me.port)
events.run(function()
  if job.position == 1 then
    events.sleep(1)
    gossip("rumor-1", 0)
  end
  events.sleep(8)
  events.exit()
end)
