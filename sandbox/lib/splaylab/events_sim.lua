--[[
splaylab.events_sim - splaylab.events in the simulator: the kernel runs the node's threads
(platform.scheduler, splaylab.sim.kernel; docs/simulation.md "Threads").

A thread made ready from outside its node's turn (a message, churn), or whose deadline comes, is
an event of the kernel's queue, which runs a turn of the node: the thread, then what the node's
own threads make ready meanwhile (threads they start, fire, unlock, their yields, their sleeps
until now) in rounds, as the live loop runs them (due timeouts first, then the ready threads in
order), until none is ready. Only then do other nodes' events run: a node whose threads never let
time pass is one endless resume, which the simulator's spin check stops, as it stopped the
endless round of the loop. The node's coroutine, in events.run, waits (wait) for a leave request
or for nothing to be left (no thread ready, sleeping or waiting on a socket), as the live loop ends.

Runtime side only (splaylab.events, when platform.scheduler is set):
  sim.attach(sched, core)      core: events' step, wake_with, run_round, TIMEOUT, has_ready(),
                               exiting(), waiting(), fire_deadline(rec, token) -> bool
  sim.post(rec) -> bool        rec is ready: queued in the kernel, or false within a turn (then
                               events' own ready list takes it, for this turn's rounds)
  sim.due(rec, deadline) -> bool   a timeout at or before now within a turn: this turn's
  sim.run_ready(rec), sim.run_deadline(rec, token)   the kernel's events (sched.attach)
  sim.wait(idle)               events.run's wait; idle() before it first blocks
]]
local platform = require "splaylab.platform"
local leave = require "splaylab.events_leave"

local M = { _NAME = "splaylab.events_sim", _VERSION = "0.1" }

local sched, TIMEOUT, step, wake_with, run_round, has_ready, exiting, waiting, fire_deadline
local queued = 0                   -- ready events posted to the kernel, not run yet
local in_turn = false              -- one of this node's threads runs
local due_rec, due_token = {}, {}  -- threads that slept until now, in this turn

function M.attach(scheduler, core)
  sched, TIMEOUT = scheduler, core.TIMEOUT   -- (events' wake-up values of a timeout)
  step, wake_with, run_round, has_ready = core.step, core.wake_with, core.run_round, core.has_ready
  exiting, waiting, fire_deadline = core.exiting, core.waiting, core.fire_deadline
end

function M.post(rec)
  if in_turn then return false end
  queued = queued + 1
  sched.ready(rec)
  return true
end

function M.due(rec, deadline)
  if not in_turn or deadline > platform.now() then return false end
  local n = #due_rec + 1
  due_rec[n], due_token[n] = rec, rec.token
  return true
end

-- nothing left to run: the loop parked in events.run ends, as the live loop does
local function check_end()
  if exiting() or (queued == 0 and not waiting()) then sched.unpark() end
end

local function run_turn(rec)
  in_turn = true
  step(rec)
  while (has_ready() or due_rec[1]) and not exiting() do
    for i = 1, #due_rec do   -- the live loop's fire_timers: due timeouts first
      local r, token = due_rec[i], due_token[i]
      due_rec[i], due_token[i] = nil, nil
      wake_with(r, token, TIMEOUT)
    end
    run_round()
  end
  in_turn = false
  check_end()
end

function M.run_ready(rec)
  queued = queued - 1
  run_turn(rec)
end

function M.run_deadline(rec, token)
  if fire_deadline(rec, token) then run_turn(rec) else check_end() end
end

function M.wait(idle)
  local signal = platform.leave_signal()
  while not exiting() and (queued > 0 or waiting()) do
    if signal and signal:readable() then   -- also one that came before the loop ran
      leave.requests(signal:received())
    else
      idle()
      sched.park(signal)
    end
  end
end

return M
