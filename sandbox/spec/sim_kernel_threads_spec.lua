-- In the simulator the kernel runs a node's events threads itself (platform.scheduler): a
-- thread made ready, or whose deadline comes, is an event of the kernel's queue. These are the
-- events loop's rules (splaylab.events' header), checked on that path: when a thread wakes,
-- when the loop ends, what events.exit, an error and a leave request stop.
local kernel = require "splaylab.sim.kernel"
local world = require "splaylab.sim.world"
world.init("lib")

-- Runs main(events, k, log) as node 1's main code, then its events loop; returns the log (the
-- lines main's threads wrote, then "exit CODE REASON @T") and the kernel.
local function simulate(main, until_t)
  local log = {}
  local k
  k = kernel.new{
    start_node = function(node)
      local w = world.new({}, 1)
      w.require("splaylab.platform").install(node.platform)
      local events = w.require("splaylab.events")
      events.on_error = function(_, err)
        log[#log + 1] = "error " .. tostring(err):match(":%s*([^:]*)$")
        node.platform.exit(1)
      end
      events.on_exit = function() node.platform.exit(0) end
      main(events, k, log)
      if events.pending() > 0 then events.run() end
    end,
    emit = function(_, t, level, text)
      if level == "exit" then log[#log + 1] = ("exit %s @%g"):format(text:gsub("\t", " "), t) end
    end,
  }
  k:start(1, { ip = "10.0.0.1" })
  k:run(until_t or 1000)
  return log, k
end

local function note(log, k, what) log[#log + 1] = ("%s @%g"):format(what, k.now) end

describe("sim.kernel threads", function()
  it("wake at a message's instant or at their deadline, and leave no entry in the queue", function()
    local box
    local log, k = simulate(function(events, k2, l)
      box = k2.net:box(k2.up[1])
      events.thread(function()
        note(l, k2, "message " .. tostring(events.wait_socket(box, "r", k2.now + 60)))
        box:take()
        note(l, k2, "timeout " .. tostring(events.wait_socket(box, "r", k2.now + 4)))
      end)
      events.thread(function() events.sleep(5); note(l, k2, "slept") end)
      k2:at(3, function() box:put("m") end)
    end)
    assert.same({ "message true @3", "slept @5", "timeout false @7", "exit 0 ended normally @7" }, log)
    assert.same({}, k.heap)   -- the 60 s deadline left when the message came
  end)

  it("run in the order they were made ready at one instant", function()
    local log = simulate(function(events, k, l)
      for i = 1, 3 do
        events.thread(function() events.wait("go"); note(l, k, "woken " .. i) end)
      end
      events.thread(function()
        events.sleep(1); note(l, k, "fire"); events.fire("go"); events.yield(); note(l, k, "after")
      end)
    end)
    assert.same({ "fire @1", "woken 1 @1", "woken 2 @1", "woken 3 @1", "after @1", "exit 0 ended normally @1" }, log)
  end)

  it("end the loop when none can run again (a thread waiting on an event forever is dropped)", function()
    local log = simulate(function(events, k, l)
      events.thread(function() events.wait("never"); note(l, k, "woken") end)
      events.thread(function() events.sleep(2); note(l, k, "slept") end)
    end)
    assert.same({ "slept @2", "exit 0 ended normally @2" }, log)
  end)

  it("started before the loop run only once it runs (main code that sleeps blocks them)", function()
    local log = simulate(function(events, k, l)
      events.thread(function() note(l, k, "thread") end)
      events.sleep(2)   -- outside a thread: the process sleeps, as live
      note(l, k, "main")
    end)
    assert.same({ "main @2", "thread @2", "exit 0 ended normally @2" }, log)
  end)

  it("stop at events.exit: a thread ready at the same instant does not run", function()
    local log = simulate(function(events, k, l)
      events.thread(function() events.sleep(1); note(l, k, "exit"); events.exit(); note(l, k, "not here") end)
      events.thread(function() events.sleep(1); note(l, k, "too late") end)
      events.thread(function() events.sleep(9); note(l, k, "never") end)
    end)
    assert.same({ "exit @1", "exit 0 ended normally @1" }, log)
  end)

  it("stop at an error in one of them: the node fails at once", function()
    local log = simulate(function(events, k, l)
      events.thread(function() events.sleep(1); error("boom") end)
      events.thread(function() events.sleep(1); note(l, k, "too late") end)
    end)
    assert.same({ "error boom", "exit 1 ended with exit code 1 @1" }, log)
  end)

  it("see a leave request at once while the loop waits", function()
    local log = simulate(function(events, k, l)
      events.on_leave(function() note(l, k, "leaving"); events.sleep(0.5); note(l, k, "handler done") end)
      events.thread(function() events.sleep(100); note(l, k, "never") end)
      k:at(3, function() k:leave(k.up[1], true) end)
    end)
    assert.same({ "leaving @3", "handler done @3.5", "exit 0 left (churn: graceful) @3.5" }, log)
  end)

  it("see a leave request that came before the loop ran once it runs", function()
    local log = simulate(function(events, k, l)
      events.on_leave(function() note(l, k, "leaving") end)
      events.thread(function() events.sleep(100); note(l, k, "never") end)
      k:at(1, function() k:leave(k.up[1], true) end)
      events.sleep(1.5)   -- main code, outside the loop: the request waits for it
    end)
    assert.same({ "leaving @1.5", "exit 0 left (churn: graceful) @1.5" }, log)
  end)

  -- One set of events functions serves every node (splaylab.events_core): each call must act on
  -- the state of the node whose code runs, and a wake-up that one node's code causes on another
  -- (a message put in its box) must act on the other's.
  -- Runs main(events, node, k) as the main code of nodes 1 and 2 until virtual time 100.
  local function two_nodes(main)
    local k
    k = kernel.new{
      start_node = function(node)
        local w = world.new({}, node.k)
        w.require("splaylab.platform").install(node.platform)
        local events = w.require("splaylab.events")
        events.on_exit = function() node.platform.exit(0) end
        main(events, node, k)
      end,
      emit = function() end,
    }
    k:start(1, { ip = "10.0.0.1" })
    k:start(2, { ip = "10.0.0.2" })
    k:run(100)
  end

  it("of several nodes stay their own node's, whoever wakes them", function()
    local log, boxes, ev = {}, {}, {}
    two_nodes(function(events, node, k)
      ev[node.k] = events
      boxes[node.k] = k.net:box(node)
      events.thread(function()
        -- node 1 is woken by node 2's put and starts threads: node 1's, not node 2's
        while events.wait_socket(boxes[node.k], "r", k.now + 10) do
          local m = boxes[node.k]:take()
          events.thread(function() events.sleep(1); note(log, k, node.k .. " got " .. m) end)
          note(log, k, node.k .. " pending " .. events.pending())
        end
      end)
      for _ = 1, node.k do events.thread(function() events.sleep(50) end) end   -- counts apart
      events.thread(function()
        events.sleep(node.k)
        boxes[3 - node.k]:put("from " .. node.k)   -- on the other node's box, in this node's turn
        note(log, k, node.k .. " sent, pending " .. events.pending())
      end)
      events.run()
    end)
    assert.same({
      -- node 1: its reader, sender and sleeper; node 2: its reader, sender, two sleepers and the
      -- thread its reader started
      "1 sent, pending 3 @1", "2 pending 5 @1",
      "2 sent, pending 5 @2", "2 got from 1 @2", "1 pending 3 @2",   -- node 1's sender has ended
      "1 got from 2 @3",
    }, log)
    assert.are_not.equal(ev[1], ev[2])
  end)

  it("of a node whose main code resumes after another node's are its own", function()
    local log = {}
    two_nodes(function(events, node, k)
      for _ = 1, node.k do events.thread(function() end) end
      events.sleep(1)   -- main code: the node's coroutine waits while the other node's runs
      note(log, k, node.k .. " pending " .. events.pending())
      events.run()
      note(log, k, node.k .. " pending " .. events.pending())
    end)
    assert.same({ "1 pending 1 @1", "2 pending 2 @1", "1 pending 0 @1", "2 pending 0 @1" }, log)
  end)
end)
