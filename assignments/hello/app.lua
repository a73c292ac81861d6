-- Hello, SplayLab: every node says who it is, then reports a few times.
-- Run it: ./splaylab submit assignments/hello/app.lua --nodes 10 --time 20 --follow
require "splay.base"

events.run(function()
  log.info("hello from node " .. job.position .. " of " .. #job.nodes ..
           " at " .. job.me.ip .. ":" .. job.me.port)
  for round = 1, 5 do
    events.sleep(1)
    print("node " .. job.position .. ": round " .. round)
  end
  events.exit()
end)
