-- Benchmark app (bench/sandbox.py): node 2 calls node 1 through splay.rpc CALLS times and
-- reports the mean round trip as a metric; node 1 serves.
require "splay.base"
local rpc = require "splay.rpc"
local metrics = require "splay.metrics"
local CALLS = 2000

function echo(x) return x end

events.run(function()
  rpc.server(job.me.port)
  if job.position == 2 then
    events.sleep(0.5)
    for _ = 1, 50 do rpc.call(job.nodes[1], {"echo", "warm"}) end
    local t0 = misc.time()
    for _ = 1, CALLS do assert(rpc.call(job.nodes[1], {"echo", "x"})) end
    metrics.observe("rpc_rtt", (misc.time() - t0) / CALLS)
  else
    events.sleep(30)
  end
  events.exit()
end)
