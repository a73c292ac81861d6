--[[
splaylab.events_loop - the events loop of splaylab.events (events.run, events.loop): live, it
runs the ready threads in rounds and waits in select for sockets and timers; in the simulator
it hands the threads to the kernel and waits (splaylab.events_sim). One set of functions for
every node, as splaylab.events_core's, whose state S the loop runs (the node whose code called
run: events_core's header).

Runtime side only: loop.run (splaylab.events puts it in the API). The loop's rules: splaylab.events' header.
]]
local core = require "splaylab.events_core"

local M = { _NAME = "splaylab.events_loop", _VERSION = "0.1" }

local ipairs = ipairs
local heap = require "splaylab.heap"
local wake_with, run_round, idle, thread = core.wake_with, core.run_round, core.idle, core.api.thread
local READY, TIMEOUT = core.READY, core.TIMEOUT
local TOKEN, TIMED = core.REC.TOKEN, core.REC.TIMED   -- a thread's record's slots
local NONE = {}   -- an empty list, never written: "nothing ready" without a new table

local function fire_timers(S, now)
  local timers = S.timers
  while timers[1] and timers[1][1] <= now do
    local t = heap.pop(timers)
    local rec = t[4]
    rec[TIMED] = false   -- this entry is gone
    S.ntimed = S.ntimed - 1
    wake_with(rec, t[5], TIMEOUT)
  end
end

-- select over the sockets threads wait on and the leave signal
local function poll_sockets(S, timeout)
  local platform = S.platform
  local leave_signal = platform.leave_signal()
  local readers, writers = S.readers, S.writers
  local rr, ww = platform.poll(readers, writers, leave_signal, timeout)
  local leave_requested = false
  for _, s in ipairs(rr or NONE) do
    if s == leave_signal then
      leave_requested = true
    else
      local rec = readers[s]
      if rec then wake_with(rec, rec[TOKEN], READY) end
    end
  end
  for _, s in ipairs(ww or NONE) do
    local rec = writers[s]
    if rec then wake_with(rec, rec[TOKEN], READY) end
  end
  -- after the wake-ups: a handler then runs in the same round as the data that arrived
  if leave_requested then S.leave.requests(leave_signal:received()) end
end

function M.run(f)
  local S = core.current_state()
  if f ~= nil then thread(f) end
  if S.looping then return end   -- run() from inside a thread only schedules f
  S.looping = true
  if S.sched then   -- the kernel runs the threads: wait for a leave request or the end
    S.direct = true
    local ready = S.ready
    for i, rec in ipairs(ready) do ready[i] = nil; core.make_ready(S, rec) end
    core.sim_wait(S)
    S.direct = false
  end
  local platform, trace = S.platform, S.trace
  while not S.exiting do
    fire_timers(S, platform.now())
    local timers = S.timers
    if #S.ready > 0 then
      run_round(S)
      -- poll between rounds only when threads are still ready (no starvation); otherwise the
      -- next round blocks in select anyway, and a second select here would cost a syscall
      if #S.ready > 0 and not S.exiting then
        if S.nsock > 0 then poll_sockets(S, 0) else S.leave.poll() end
      end
    -- only sleepers and a leave signal: select on the signal, so a leave cuts the sleep short
    elseif S.nsock > 0 or (timers[1] and platform.leave_signal()) then
      idle(S)
      local timeout = timers[1] and (timers[1][1] - platform.now()) or nil
      poll_sockets(S, trace:flush_due(timeout))
    elseif timers[1] then
      idle(S)
      platform.sleep(trace:flush_due(timers[1][1] - platform.now()))
    else
      break
    end
  end
  if S.exiting then
    S.recs, S.ready, S.spare, S.timers, S.readers, S.writers = {}, {}, {}, {}, {}, {}
    S.named.reset()
    S.nsock, S.count, S.exiting, S.ntimed = 0, 0, false, 0
    S.leave.reset()
  end
  S.looping = false
end


return M
