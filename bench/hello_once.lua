-- Benchmark app (bench/sandbox.py): each node says it is up, then idles.
require "splay.base"
events.run(function()
  print("up " .. job.position)
  events.sleep(60)
end)
