-- Benchmark app (bench/sandbox.py): node 2 calls node 1 through splay.rpc, ROUNDS rounds of
-- CALLS calls on a kept connection (SplayLab's default) and ROUNDS rounds with a connection per
-- call (keep_alive = 0, SPLAY's way); each round's mean round trip is a metric
-- (rpc_rtt_kept, rpc_rtt_per_call), and so is the CPU time each side spent per call of a kept
-- round (rpc_cpu_kept_client, rpc_cpu_kept_server: os.clock of each process, the server's read
-- through a call before and after the round). Node 1 serves.
require "splay.base"
local rpc = require "splay.rpc"
local metrics = require "splay.metrics"
local CALLS, ROUNDS = 1000, 9

function echo(x) return x end
function cpu() return os.clock() end

local function rounds(name, cpu_name)
  for _ = 1, ROUNDS do
    local s0 = cpu_name and rpc.call(job.nodes[1], {"cpu"})
    local t0, c0 = misc.time(), os.clock()
    for _ = 1, CALLS do assert(rpc.call(job.nodes[1], {"echo", "x"})) end
    local t1, c1 = misc.time(), os.clock()
    metrics.observe(name, (t1 - t0) / CALLS)
    if cpu_name then
      local s1 = rpc.call(job.nodes[1], {"cpu"})
      metrics.observe(cpu_name .. "_client", (c1 - c0) / CALLS)
      metrics.observe(cpu_name .. "_server", (s1 - s0) / CALLS)
    end
  end
end

events.run(function()
  rpc.server(job.me.port)
  if job.position == 2 then
    events.sleep(0.5)
    for _ = 1, 600 do rpc.call(job.nodes[1], {"echo", "warm"}) end
    rounds("rpc_rtt_kept", "rpc_cpu_kept")
    rpc.settings.keep_alive = 0
    rounds("rpc_rtt_per_call")
  else
    events.sleep(60)
  end
  events.exit()
end)
