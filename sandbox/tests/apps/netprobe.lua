-- Network-emulation probe (sandbox/tests/test_netem.py): every node sends timestamped probes
-- to the other nodes, over UDP (to their port) and over TCP (rpc.call), every PERIOD s from
-- 1 s on, until 1 s before the end. All nodes share this machine's clock, so the receiver
-- measures the one-way delay directly: metrics owd_udp / owd_tcp {src, dst}, and counts
-- sent_udp / recv_udp for the loss rate.
require "splay.base"
local rpc = require "splay.rpc"
local metrics = require "splay.metrics"
local PERIOD = 0.1

function probe(src, sent_at)
  metrics.observe("owd_tcp", misc.time() - sent_at, {src = src, dst = job.position})
  return true
end

local u = socket.udp()
assert(u:setsockname("*", job.me.port))
events.thread(function()
  while true do
    local data = u:receive()
    if not data then return end
    local src, sent_at = data:match("^(%d+) ([%d%.]+)")
    if src then
      metrics.count("recv_udp")
      metrics.observe("owd_udp", misc.time() - tonumber(sent_at), {src = tonumber(src), dst = job.position})
    end
  end
end)
rpc.server(job.me.port)

events.thread(function()
  events.sleep(1)
  local stop = misc.time() + job.duration - 2.5
  local k = 0
  while misc.time() < stop do
    k = k + 1
    local dst = job.nodes[(job.position + k - 1) % #job.nodes + 1]
    if dst.port ~= job.me.port then
      metrics.count("sent_udp")
      u:sendto(job.position .. " " .. string.format("%.6f", misc.time()) .. " " .. string.rep("x", 64), dst.ip, dst.port)
      events.thread(function() rpc.call(dst, {"probe", job.position, misc.time()}, 5) end)
    end
    events.sleep(PERIOD)
  end
end)
