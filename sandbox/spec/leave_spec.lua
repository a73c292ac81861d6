-- events.on_leave and the loop's handling of leave requests, with a fake leave signal in the
-- platform layer (the real signalfd: sigterm_spec.lua; real processes: tests/test_leave.py).
local events = require "splaylab.events"
local platform = require "splaylab.platform"
local H = require "helpers"

-- What platform.leave_signal() returns: `requests` is what the next received() reads.
local function fake_leave_signal()
  local sig = { requests = 0 }
  function sig.received()
    local n = sig.requests
    sig.requests = 0
    return n
  end
  return sig
end

describe("events.on_leave", function()
  local saved_platform, saved_exit, sig, records

  before_each(function()
    saved_platform = { poll = platform.poll, leave_signal = platform.leave_signal }
    saved_exit = events.on_exit
    events.on_exit = function() end   -- node.lua exits the process; here the loop just stops
    sig = fake_leave_signal()
    local real_poll = platform.poll
    platform.install {
      leave_signal = function() return sig end,
      -- the fake signal (the loop's `extra`) is "readable" while a request waits; real sockets
      -- go to the real poll
      poll = function(readers, writers, _, timeout)
        if sig.requests > 0 then
          local r, w = real_poll(readers, writers, nil, 0)
          local rr = { unpack(r) }   -- the real poll's arrays are its own (splaylab.fdpoll)
          rr[#rr + 1] = sig
          return rr, w
        end
        if next(readers) == nil and next(writers) == nil then   -- only the signal: wait, look again
          platform.sleep(math.min(timeout or 0.01, 0.01))
          return {}, {}
        end
        return real_poll(readers, writers, nil, math.min(timeout or 0.01, 0.01))
      end,
    }
    records = H.capture()
  end)

  after_each(function()
    H.restore()
    platform.install(saved_platform)
    events.on_exit = saved_exit
  end)

  local function infos()
    local texts = {}
    for _, r in ipairs(records) do texts[#texts + 1] = r[1] .. ":" .. r[2] end
    return texts
  end

  it("runs the handlers in order, each in its own thread, then ends the node", function()
    local trace, threads = {}, {}
    events.run(function()
      events.on_leave(function()
        threads[1] = coroutine.running()
        trace[#trace + 1] = "first starts"
        events.sleep(0.05)
        trace[#trace + 1] = "first done"
      end)
      events.on_leave(function()
        threads[2] = coroutine.running()
        trace[#trace + 1] = "second starts"
        events.sleep(0.02)
        trace[#trace + 1] = "second done"
      end)
      events.periodic(0.01, function() end)   -- the app's own work, ended by the leave
      events.sleep(0.03)
      sig.requests = 1
    end)
    assert.same({ "first starts", "second starts", "second done", "first done" }, trace)
    assert.is_true(threads[1] ~= threads[2])
    assert.same({ "info:leaving gracefully", "info:left gracefully" }, infos())
    assert.equal(0, events.pending())   -- the periodic thread ended with the node
  end)

  it("ends the node at once when no handler is registered", function()
    local ticks = 0
    local t0 = platform.now()
    events.run(function()
      events.periodic(0.01, function() ticks = ticks + 1 end)
      events.sleep(0.03)
      sig.requests = 1
    end)
    assert.is_true(platform.now() - t0 < 0.2)
    assert.same({ "info:left gracefully" }, infos())
    assert.equal(0, events.pending())
  end)

  it("ends the node at once on a second request while the handlers run", function()
    local finished = false
    local t0 = platform.now()
    events.run(function()
      events.on_leave(function() events.sleep(5); finished = true end)
      events.periodic(0.01, function() end)
      events.sleep(0.02)
      sig.requests = 1
      events.sleep(0.05)
      sig.requests = 1
    end)
    assert.is_false(finished)
    assert.is_true(platform.now() - t0 < 1)
    assert.same({ "info:leaving gracefully",
      "info:left at once: a second leave request came during the on_leave handlers" }, infos())
  end)

  it("sees a request while threads keep the loop busy (no select)", function()
    local handled = false
    events.run(function()
      events.on_leave(function() handled = true end)
      events.thread(function() while true do events.yield() end end)
      events.sleep(0.02)   -- the loop stays busy: the signal is read between rounds
      sig.requests = 1
    end)
    assert.is_true(handled)
  end)

  it("lets a handler end the node with events.exit()", function()
    local after_exit = false
    events.run(function()
      events.on_leave(function() events.exit(); after_exit = true end)
      events.on_leave(function() events.sleep(1) end)
      events.periodic(0.01, function() end)
      events.sleep(0.02)
      sig.requests = 1
    end)
    assert.is_false(after_exit)
    assert.same({ "info:leaving gracefully" }, infos())
  end)

  it("runs a handler registered while leaving", function()
    local trace = {}
    events.run(function()
      events.on_leave(function()
        events.on_leave(function() events.sleep(0.02); trace[#trace + 1] = "late" end)
        trace[#trace + 1] = "first"
      end)
      events.periodic(0.01, function() end)
      events.sleep(0.02)
      sig.requests = 1
    end)
    assert.same({ "first", "late" }, trace)
    assert.same({ "info:leaving gracefully", "info:left gracefully" }, infos())
  end)

  it("forgets the handlers when the node ended (the next run starts clean)", function()
    events.run(function()
      events.on_leave(function() end)
      events.periodic(0.01, function() end)
      events.sleep(0.01)
      sig.requests = 1
    end)
    events.run(function()
      events.periodic(0.01, function() end)
      events.sleep(0.01)
      sig.requests = 1
    end)
    assert.same({ "info:leaving gracefully", "info:left gracefully", "info:left gracefully" }, infos())
  end)

  it("does nothing without a request, and refuses what is not a function", function()
    local done = false
    events.run(function()
      events.on_leave(function() error("not called") end)
      events.sleep(0.02)
      done = true
      events.exit()   -- ends the run and forgets the handler
    end)
    assert.is_true(done)
    assert.same({}, infos())
    assert.has_error(function() events.on_leave("bye") end, "events.on_leave: function expected, got string")
  end)
end)
