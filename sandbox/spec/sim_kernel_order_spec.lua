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

-- Action `id` runs now: what should have run is the model's next (the least (t, n) of what was
-- posted and has not run yet).
local function ran_now(pending, want, got, id)
  local first = table.remove(pending, 1)
  want[#want + 1] = first and first.id or "none"
  got[#got + 1] = id
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
          ran_now(pending, want, got, id)
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
        model_insert(pending, { t = t, n = posted, id = posted })
        k:at(t, action(posted))
      end
      for _ = 1, 5 do post(math.random(0, 3)) end
      k:run(1000)
      assert.are.same(want, got)
      assert.are.equal(posted, #got)
      assert.is_true(posted > 100)
    end
  end)

  -- Threads' deadlines (Kernel:_timer, the entries sched.deadline keeps) are armed, re-armed
  -- and cancelled between the posts; those past the horizon wait outside the heap, and still
  -- come in (t, seq) order with the rest, cancelled ones never.
  it("is (time, sequence) for deadlines armed, re-armed and cancelled among the posts", function()
    local DELAYS = { 0, 0, 0.001, 0.5, 1, 3, 60, 60, 200, -0.25 }
    for seed = 1, 30 do
      math.randomseed(seed)
      local k = kernel.new{ start_node = function() end, emit = function() end }
      local got, want, pending = {}, {}, {}
      local budget, armed_ever, fired = 600, 0, 0
      local timers = {}
      local function forget(id)
        for i, item in ipairs(pending) do
          if item.id == id then table.remove(pending, i); return end
        end
      end
      local act
      local function ran(id)
        ran_now(pending, want, got, id)
        for _ = 1, math.random(1, 4) do
          if budget > 0 then
            budget = budget - 1
            local r, t = math.random(), k.now + DELAYS[math.random(#DELAYS)]
            if t < k.now then t = k.now end
            if r < 0.4 then                             -- a plain post
              local id2 = "p" .. budget
              k:at(t, function() act(id2) end)
              model_insert(pending, { t = t, n = k.seq, id = id2 })
            elseif r < 0.8 then                         -- a deadline armed (or re-armed)
              local which = math.random(8)
              local e = timers[which]
              if not e then
                e = { 0, 0, false, function() fired = fired + 1; act("d" .. which) end }
                timers[which] = e
              end
              forget("d" .. which)
              k.seq = k.seq + 1
              k:_timer(e, t, k.seq)
              armed_ever = armed_ever + 1
              model_insert(pending, { t = t, n = k.seq, id = "d" .. which })
            else                                        -- a deadline cancelled
              local which = math.random(8)
              if timers[which] then k:_untimer(timers[which]); forget("d" .. which) end
            end
          end
        end
      end
      act = ran
      for i = 1, 5 do
        local t = math.random(0, 3)
        k:at(t, function() act("s" .. i) end)
        model_insert(pending, { t = t, n = k.seq, id = "s" .. i })
      end
      k:run(100000)
      assert.are.same(want, got)
      assert.are.same({}, pending)
      assert.are.equal(0, k.far_n)
      assert.is_true(armed_ever > 100 and fired > 20)
    end
  end)
end)
