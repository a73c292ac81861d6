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

One set of functions for every node (splaylab.events_core): a thread's record names its node's
state (its STATE slot), and the kernel's events enter that node (events_core.use) before its threads run.
A thread made ready outside a turn is posted to the kernel (events_core's make_ready, which
counts it in the state's QUEUED slot); a timeout due now within a turn is the turn's
(events_core's suspend: the DUE_REC slot).

Runtime side only (splaylab.events, when platform.scheduler is set):
  sched.attach(S, sim)         the node's state and these functions, for the kernel:
  sim.run_ready(rec), sim.run_deadline(rec, token)   the kernel's events
  sim.socket_ready(S, raw)     a socket of node S became readable
  sim.use(S)                   the kernel resumes node S's own coroutine
  events_core.sim_wait(S)      events.run's wait (set here)
]]

local core = require "splaylab.events_core"

local M = { _NAME = "splaylab.events_sim", _VERSION = "0.2" }

local step, wake_with, run_round, idle, fire_deadline, use =
  core.step, core.wake_with, core.run_round, core.idle, core.fire_deadline, core.use
local TIMEOUT = core.TIMEOUT
local STATE = core.REC.STATE   -- a thread's record's slot: its node's state
local ST = core.ST   -- a node's state's slots
local S_DUE_REC, S_DUE_TOKEN, S_EXITING, S_IN_TURN, S_LEAVE, S_NSOCK, S_NTIMED, S_PLATFORM,
  S_QUEUED, S_READY, S_SCHED =
  ST.DUE_REC, ST.DUE_TOKEN, ST.EXITING, ST.IN_TURN, ST.LEAVE, ST.NSOCK, ST.NTIMED, ST.PLATFORM,
  ST.QUEUED, ST.READY, ST.SCHED

-- nothing left to run: the loop parked in events.run ends, as the live loop does
local function check_end(S)
  if S[S_EXITING] or (S[S_QUEUED] == 0 and S[S_NSOCK] == 0 and S[S_NTIMED] == 0) then S[S_SCHED].unpark() end
end

local function run_turn(S, rec)
  S[S_IN_TURN] = true
  step(rec)
  local due_rec, due_token = S[S_DUE_REC], S[S_DUE_TOKEN]
  while (S[S_READY][1] or due_rec[1]) and not S[S_EXITING] do
    for i = 1, #due_rec do   -- the live loop's fire_timers: due timeouts first
      local r, token = due_rec[i], due_token[i]
      due_rec[i], due_token[i] = nil, nil
      wake_with(r, token, TIMEOUT)
    end
    run_round(S)
  end
  S[S_IN_TURN] = false
  check_end(S)
end

function M.run_ready(rec)
  local S = rec[STATE]
  use(S)
  S[S_QUEUED] = S[S_QUEUED] - 1
  run_turn(S, rec)
end

function M.run_deadline(rec, token)
  local S = rec[STATE]
  use(S)
  if fire_deadline(rec, token) then run_turn(S, rec) else check_end(S) end
end

M.socket_ready = core.socket_ready
M.use = use

-- events.run's wait: a leave request, or nothing left (no thread ready, sleeping or waiting on
-- a socket); idle before it first blocks
function core.sim_wait(S)
  local signal = S[S_PLATFORM].leave_signal()
  while not S[S_EXITING] and (S[S_QUEUED] > 0 or S[S_NSOCK] > 0 or S[S_NTIMED] > 0) do
    if signal and signal:readable() then   -- also one that came before the loop ran
      S[S_LEAVE].requests(signal:received())
    else
      idle(S)
      S[S_SCHED].park(signal)
    end
  end
end

return M
