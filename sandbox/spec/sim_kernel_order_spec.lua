-- splaylab.sim.kernel runs its events in (time, order of posting) order: checked against a
-- model, a list kept sorted by (t, post number), on random programs where actions post more
-- actions now, later, at the same later instants (ties), and in the past. A run depends on
-- nothing but its inputs only if this order is total (docs/simulation.md, "Determinism").
local kernel = require "splaylab.sim.kernel"

local function model_insert(list, item)
  local i = #list
  while i >= 1 and (list[i].t > item.t or (list[i].t == item.t and list[i].n > item.n)) do i = i - 1 end
  table.insert(list, i + 1, item)
end

describe("sim.kernel event order", function()
  it("is (time, posting order) for events posted now, later and before now", function()
    local DELAYS = { 0, 0, 0, 0.5, 1, 1, 2, -0.25 }
    for seed = 1, 20 do
      math.randomseed(seed)
      local k = kernel.new{ start_node = function() end, emit = function() end }
      local got, want, pending, posted = {}, {}, {}, 0
      local budget = 400
      local post   -- post(t): a new action at t, in the kernel and in the model
      local function action(id)
        return function()
          -- the model's next: the least (t, n) of what was posted and has not run yet
          local first = table.remove(pending, 1)
          want[#want + 1] = first and first.n or "none"
          got[#got + 1] = id
          for _ = 1, math.random(0, 3) do
            if budget > 0 then
              budget = budget - 1
              post(k.now + DELAYS[math.random(#DELAYS)])
            end
          end
        end
      end
      function post(t)
        posted = posted + 1
        model_insert(pending, { t = t, n = posted })
        k:at(t, action(posted))
      end
      for _ = 1, 5 do post(math.random(0, 3)) end
      k:run(1000)
      assert.are.same(want, got)
      assert.are.equal(posted, #got)
      assert.is_true(posted > 100)
    end
  end)
end)
