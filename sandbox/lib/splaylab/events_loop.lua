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
local ST = core.ST   -- a node's state's slots
local S_COUNT, S_DIRECT, S_EXITING, S_LEAVE, S_LOOPING, S_NAMED, S_NSOCK, S_NTIMED, S_PLATFORM,
  S_READERS, S_READY, S_RECS, S_SCHED, S_SPARE, S_TIMERS, S_TRACE, S_WRITERS =
  ST.COUNT, ST.DIRECT, ST.EXITING, ST.LEAVE, ST.LOOPING, ST.NAMED, ST.NSOCK, ST.NTIMED,
  ST.PLATFORM, ST.READERS, ST.READY, ST.RECS, ST.SCHED, ST.SPARE, ST.TIMERS, ST.TRACE, ST.WRITERS
local NONE = {}   -- an empty list, never written: "nothing ready" without a new table

local function fire_timers(S, now)
  local timers = S[S_TIMERS]
  while timers[1] and timers[1][1] <= now do
    local t = heap.pop(timers)
    local rec = t[4]
    rec[TIMED] = false   -- this entry is gone
    S[S_NTIMED] = S[S_NTIMED] - 1
    wake_with(rec, t[5], TIMEOUT)
  end
end

-- select over the sockets threads wait on and the leave signal
local function poll_sockets(S, timeout)
  local platform = S[S_PLATFORM]
  local leave_signal = platform.leave_signal()
  local readers, writers = S[S_READERS], S[S_WRITERS]
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
  if leave_requested then S[S_LEAVE].requests(leave_signal:received()) end
end

function M.run(f)
  local S = core.current_state()
  if f ~= nil then thread(f) end
  if S[S_LOOPING] then return end   -- run() from inside a thread only schedules f
  S[S_LOOPING] = true
  if S[S_SCHED] then   -- the kernel runs the threads: wait for a leave request or the end
    S[S_DIRECT] = true
    local ready = S[S_READY]
    for i, rec in ipairs(ready) do ready[i] = nil; core.make_ready(S, rec) end
    core.sim_wait(S)
    S[S_DIRECT] = false
  end
  local platform, trace = S[S_PLATFORM], S[S_TRACE]
  while not S[S_EXITING] do
    fire_timers(S, platform.now())
    local timers = S[S_TIMERS]
    if #S[S_READY] > 0 then
      run_round(S)
      -- poll between rounds only when threads are still ready (no starvation); otherwise the
      -- next round blocks in select anyway, and a second select here would cost a syscall
      if #S[S_READY] > 0 and not S[S_EXITING] then
        if S[S_NSOCK] > 0 then poll_sockets(S, 0) else S[S_LEAVE].poll() end
      end
    -- only sleepers and a leave signal: select on the signal, so a leave cuts the sleep short
    elseif S[S_NSOCK] > 0 or (timers[1] and platform.leave_signal()) then
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
  if S[S_EXITING] then
    S[S_RECS], S[S_READY], S[S_SPARE], S[S_TIMERS], S[S_READERS], S[S_WRITERS] = {}, {}, {}, {}, {}, {}
    S[S_NAMED].reset()
    S[S_NSOCK], S[S_COUNT], S[S_EXITING], S[S_NTIMED] = 0, 0, false, 0
    S[S_LEAVE].reset()
  end
  S[S_LOOPING] = false
end


return M
