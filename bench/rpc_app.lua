-- Benchmark app (bench/sandbox.py): node 2 calls node 1 through splay.rpc, ROUNDS rounds of
-- CALLS calls on a kept connection (SplayLab's default) and ROUNDS rounds with a connection per
-- call (keep_alive = 0, SPLAY's way); each round's mean round trip is a metric
-- (rpc_rtt_kept, rpc_rtt_per_call). Node 1 serves.
require "splay.base"
local rpc = require "splay.rpc"
local metrics = require "splay.metrics"
local CALLS, ROUNDS = 1000, 9

function echo(x) return x end

local function rounds(name)
  for _ = 1, ROUNDS do
    local t0 = misc.time()
    for _ = 1, CALLS do assert(rpc.call(job.nodes[1], {"echo", "x"})) end
    metrics.observe(name, (misc.time() - t0) / CALLS)
  end
end

events.run(function()
  rpc.server(job.me.port)
  if job.position == 2 then
    events.sleep(0.5)
    for _ = 1, 600 do rpc.call(job.nodes[1], {"echo", "warm"}) end
    rounds("rpc_rtt_kept")
    rpc.settings.keep_alive = 0
    rounds("rpc_rtt_per_call")
  else
    events.sleep(60)
  end
  events.exit()
end)
