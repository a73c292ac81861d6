local events = require "splaylab.events"
local socket = require "socket"

describe("splaylab.events", function()
  -- node.lua makes exit end the process; here it only stops the loop
  local saved_exit = events.on_exit
  setup(function() events.on_exit = function() end end)
  teardown(function() events.on_exit = saved_exit end)

  it("runs threads cooperatively in creation order", function()
    local trace = {}
    events.run(function()
      events.thread(function() for i = 1, 3 do trace[#trace + 1] = "a" .. i; events.yield() end end)
      events.thread(function() for i = 1, 3 do trace[#trace + 1] = "b" .. i; events.yield() end end)
    end)
    assert.same({ "a1", "b1", "a2", "b2", "a3", "b3" }, trace)
  end)

  it("wakes sleepers in time order and sleeps when nothing is runnable", function()
    local trace = {}
    local t0 = socket.gettime()
    events.loop(function()
      events.thread(function() events.sleep(0.06); trace[#trace + 1] = "late" end)
      events.thread(function() events.sleep(0.02); trace[#trace + 1] = "early" end)
    end)
    local elapsed = socket.gettime() - t0
    assert.same({ "early", "late" }, trace)
    assert.is_true(elapsed >= 0.06 and elapsed < 0.5)
  end)

  it("periodic waits a period before the first call, as SPLAY's does", function()
    local calls = {}
    events.run(function()
      local t0 = socket.gettime()
      events.periodic(0.05, function() calls[#calls + 1] = socket.gettime() - t0 end)
      events.sleep(0.03)
      assert.same({}, calls)
      events.sleep(0.045)
      events.exit()
    end)
    assert.equal(1, #calls)
    assert.is_true(calls[1] >= 0.05, "first call at " .. tostring(calls[1]))
  end)

  it("periodic runs each call in a thread of its own and skips ticks while it still runs", function()
    local started, inside, most, periodic_thread, call_threads = 0, 0, 0, nil, {}
    events.run(function()
      periodic_thread = events.periodic(0.01, function()
        started, inside = started + 1, inside + 1
        most = math.max(most, inside)
        call_threads[coroutine.running()] = true
        events.sleep(0.035)   -- spans three ticks or more: they are skipped, not queued
        inside = inside - 1
      end)
      events.sleep(0.125)
      events.exit()
    end)
    assert.equal(1, most)                        -- never two calls at once
    assert.is_true(started >= 2 and started <= 4, "started = " .. started)   -- ~12 ticks
    assert.is_nil(call_threads[periodic_thread])
    local n = 0
    for _ in pairs(call_threads) do n = n + 1 end
    assert.equal(started, n)                     -- a new thread for each call
  end)

  it("accepts periodic(t, f) and periodic(f, t)", function()
    local a, b = 0, 0
    events.run(function()
      local pa = events.periodic(0.01, function() a = a + 1 end)
      local pb = events.periodic(function() b = b + 1 end, 0.01)
      events.sleep(0.055)
      assert.is_thread(pa); assert.is_thread(pb)
      events.exit()
      error("not reached")
    end)
    assert.is_true(a >= 5 and a <= 7, "a = " .. a)
    assert.is_true(b >= 5 and b <= 7, "b = " .. b)
    assert.equal(0, events.pending())
  end)

  it("reports an error in a thread through on_error with the thread's traceback", function()
    local got
    local saved = events.on_error
    events.on_error = function(co, err) got = { type(co), tostring(err) } end
    events.run(function() error("inside", 0) end)
    events.on_error = saved
    assert.same({ "thread", "inside" }, got)
  end)

  it("sleeps plainly when called outside a thread", function()
    local t0 = socket.gettime()
    events.sleep(0.02)
    assert.is_true(socket.gettime() - t0 >= 0.019)
  end)
end)

describe("splaylab.events (signals, locks, kill)", function()
  local saved_exit = events.on_exit
  setup(function() events.on_exit = function() end end)
  teardown(function() events.on_exit = saved_exit end)

  it("fire wakes waiters with values; wait times out with false", function()
    local got, timed
    events.run(function()
      events.thread(function() got = { events.wait("ev") } end)
      events.thread(function() timed = { events.wait("never", 0.02) } end)
      events.sleep(0.01)
      events.fire("ev", 1, "two")
    end)
    assert.same({ true, 1, "two" }, got)
    assert.same({ false }, timed)
  end)

  it("drops the timers of threads woken early and still fires the others in order", function()
    -- 60 waiters woken before their timeout leave stale heap entries, more than half the heap:
    -- it is rebuilt; the 20 sleepers set between them must still wake in deadline order, ties
    -- in the order they were set
    local woke, order = 0, {}
    events.run(function()
      for i = 1, 60 do
        events.thread(function() if events.wait("go", 0.3) then woke = woke + 1 end end)
        if i % 3 == 0 then
          local j = i / 3
          events.thread(function() events.sleep(0.01 * (j % 5)); order[#order + 1] = j end)
        end
      end
      events.thread(function() events.fire("go") end)
    end)
    assert.equal(60, woke)
    local expect = {}
    for r = 0, 4 do for j = 1, 20 do if j % 5 == r then expect[#expect + 1] = j end end end
    assert.same(expect, order)
  end)

  it("kills a thread, reports status and dead", function()
    local th, ran
    events.run(function()
      th = events.thread(function() events.sleep(0.05); ran = true end)
      events.sleep(0.01)
      assert.equal("waiting", events.status(th))
      assert.is_false(events.dead(th))
      events.kill(th)
    end)
    assert.is_nil(ran)
    assert.is_true(events.dead(th))
  end)

  it("a lock serialises threads and lock(timeout) gives up", function()
    local trace, late = {}, nil
    events.run(function()
      local l = events.lock()
      for i = 1, 2 do
        events.thread(function()
          l:lock()
          trace[#trace + 1] = "in" .. i
          events.sleep(0.02)
          trace[#trace + 1] = "out" .. i
          l:unlock()
        end)
      end
      events.thread(function() events.sleep(0.005); late = l:lock(0.01) end)
    end)
    assert.same({ "in1", "out1", "in2", "out2" }, trace)
    assert.is_false(late)
  end)

  it("a semaphore admits max threads at once; synchronize returns f's results", function()
    local inside, most, r = 0, 0, nil
    events.run(function()
      local sem = events.semaphore(2)
      for _ = 1, 5 do
        events.thread(function()
          sem:lock(); inside = inside + 1; most = math.max(most, inside)
          events.sleep(0.01); inside = inside - 1; sem:unlock()
        end)
      end
      r = { events.synchronize(function() events.sleep(0.001); return 1, 2 end) }
    end)
    assert.equal(2, most)
    assert.same({ 1, 2 }, r)
  end)

  it("refuses wait outside a thread", function()
    assert.has_error(function() events.wait("x") end, "events.wait: only inside an events thread")
  end)
end)
