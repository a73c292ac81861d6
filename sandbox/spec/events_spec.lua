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
