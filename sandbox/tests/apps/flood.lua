-- A node that floods its output: 100 lines of ~100 bytes every 10 ms (10,000 lines a second),
-- without end. The output-limit tests of the runner, the simulator, the service and the grader.
require "splay.base"
events.run(function()
  local i = 0
  while true do
    i = i + 1
    print(("x"):rep(90) .. i)
    if i % 100 == 0 then events.sleep(0.01) end
  end
end)
