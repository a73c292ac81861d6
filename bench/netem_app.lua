-- Emulation overhead benchmark (bench/sandbox.py): odd nodes send 64-byte messages to the next
-- even node for SECONDS, over UDP then over one TCP connection, as fast as the runtime lets
-- them (yielding every 50 sends so the delay queue's flusher runs); even nodes count what
-- arrives. Metrics: udp_received / tcp_received (counts), per receiving node.
require "splay.base"
local metrics = require "splay.metrics"
local SECONDS, PAYLOAD = 3, string.rep("x", 63) .. "\n"

local me, peer = job.position, job.position % 2 == 1 and job.position + 1 or job.position - 1
local sender = me % 2 == 1 and job.nodes[peer] ~= nil

events.run(function()
  if me % 2 == 0 then
    local u = socket.udp()
    u:setsockname("*", job.me.port)
    local udp_n = 0
    events.thread(function() while u:receive() do udp_n = udp_n + 1 end end)
    local srv = socket.bind("*", job.me.port)
    local c = srv:accept()
    local tcp_n = 0
    events.thread(function() while c:receive("*l") do tcp_n = tcp_n + 1 end end)
    events.sleep(2 * SECONDS + 3)
    metrics.count("udp_received", udp_n)
    metrics.count("tcp_received", tcp_n)
    events.exit()
  elseif sender then
    local dst = job.nodes[peer]
    events.sleep(1)
    local u = socket.udp()
    local stop = misc.time() + SECONDS
    local k = 0
    while misc.time() < stop do
      u:sendto(PAYLOAD, dst.ip, dst.port)
      k = k + 1
      if k % 50 == 0 then events.yield() end
    end
    local c = socket.connect(dst.ip, dst.port)
    stop = misc.time() + SECONDS
    while misc.time() < stop do
      c:send(PAYLOAD)
      k = k + 1
      if k % 50 == 0 then events.yield() end
    end
    events.sleep(2)
    events.exit()
  end
end)
