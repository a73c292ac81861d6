--[[
splaylab.events - SPLAY's cooperative scheduler: threads on coroutines, timers, events and
socket readiness, on the platform layer (splaylab.platform: now, sleep, select).

API given to student code (SPLAY's events):
  events.thread(f | {f1, f2, ...}) -> th         start a thread (runs when the loop runs)
  events.periodic(t, f) or (f, t) -> th          every t seconds (the first after t), f in a
                                                 thread of its own; a tick is skipped while the
                                                 previous call still runs (SPLAY's semantics)
  events.sleep(t), events.yield()
  events.fire(name, ...)                         wake every thread waiting on name
  events.wait(name [, timeout]) -> true, ... | false   (false on timeout)
  events.run(f) / events.loop(f)                 schedule f and run until no thread can run
  events.exit()                                  end the instance (exit code 0)
  events.kill(th), events.status(th), events.dead(th)
  events.semaphore(max), events.lock()           objects with :lock(timeout) -> bool, :unlock()
  events.synchronize(f [, timeout])              run f under the module's lock
SplayLab addition (not in SPLAY):
  events.on_leave(f)                             f runs when the host asks this node to leave
                                                 gracefully (churn `leave N gracefully`: SIGTERM)
Runtime-side (used by splaylab.socket): events.wait_socket(raw, "r"|"w", deadline) -> bool.

Main loop: run ready threads in order; when none is ready, socket.select over the sockets
threads wait on, with the nearest timer as timeout (sockets are also polled between rounds so
a busy thread set cannot starve the network). The loop ends when no thread is ready, sleeping
or waiting on a socket (threads blocked forever on an event cannot be woken: they are dropped).
An error in a thread calls M.on_error(co, err) (node.lua: log it and exit 1). M.on_idle, when
set, is called once, the first time the loop is about to block.
Graceful leave: once node.lua called platform.catch_leave(), the loop's select also watches
platform.leave_signal() (and reads it every settings.leave_poll s while threads keep the loop
busy); splaylab.events_leave runs the on_leave handlers (its header says how). Semaphores and
locks are splaylab.events_locks, fire/wait/periodic splaylab.events_named, on its suspend and wake-up.
Outside a thread, sleep blocks the process; wait and lock raise (nothing could wake them).
In the simulator (platform.scheduler set) the kernel runs the threads: splaylab.events_sim.
Limits: socket.select is bounded by FD_SETSIZE (1024 sockets waited on at once). A leave
request is seen only when the loop runs: a thread that computes without yielding, or code
blocking outside a thread, delays it (up to the host's SIGKILL).
]]
local platform = require "splaylab.platform"
local heap = require "splaylab.heap"
local trace = require "splaylab.trace"
local leave = require "splaylab.events_leave"
local locks = require "splaylab.events_locks"
local named = require "splaylab.events_named"

local M = { _NAME = "splaylab.events", _VERSION = "0.3", settings = { poll_every = 1, leave_poll = 0.05 } }

local create, resume, yield, costatus, running =
  coroutine.create, coroutine.resume, coroutine.yield, coroutine.status, coroutine.running
local type, ipairs, error, tonumber, select, unpack = type, ipairs, error, tonumber, select, unpack
local traceback = debug.traceback

local SUSPEND = {}         -- sentinel yielded by a thread that registered its own wake-up
local KILLED = {}          -- sentinel yielded by a thread that killed itself
local NONE = {}            -- an empty list, never written: "nothing ready" without a new table

local recs = {}            -- coroutine -> record {co, token, waiting, wake_args, sock, dir}
local ready = {}           -- records to resume next round, in order
local spare = {}           -- the other array of ready (the round being run)
local timers = {}          -- splaylab.heap of {when, seq, pos, rec, token}: one entry per rec
local readers, writers = {}, {}   -- raw socket -> record
local nsock = 0
local looping, exiting = false, false
local count = 0
local sched = platform.scheduler   -- the simulator's kernel (nil live): it runs the threads itself
local sim = sched and require "splaylab.events_sim"
local direct = false               -- sched runs them now: the loop has started
local ntimed = 0                   -- threads with a deadline

M.on_error = function(co, err) error(traceback(co, tostring(err)), 0) end
M.on_exit = function() platform.exit(0) end

-- timer heap (by time) -----------------------------------------------------------------------
-- Timers due at the same instant fire in the order they were set (a sequence number breaks
-- ties): in the simulator, where instants coincide, the order then depends on nothing else.
-- A thread woken before its deadline takes its entry out of the heap at once (splaylab.heap
-- keeps each entry's index): a stale entry would keep the thread (its coroutine and stack)
-- alive until the deadline (rpc: 60 s), and dropping them in bulk cost 3 % of a simulated
-- Chord. Each thread reuses its one entry.
local timer_seq = 0

local function forget_timer(rec)
  if rec.timed then
    rec.timed = nil
    ntimed = ntimed - 1
    if sched then sched.cancel(rec) else heap.remove(timers, rec.timer) end
  end
end

local function make_ready(rec)
  if not (direct and sim.post(rec)) then ready[#ready + 1] = rec end
end

-- threads ----------------------------------------------------------------------------------
local function current()
  local co = running()
  return co and recs[co]
end

local function drop_socket_wait(rec)
  if rec.sock then
    local map = rec.dir == "r" and readers or writers
    if map[rec.sock] == rec then map[rec.sock] = nil; nsock = nsock - 1 end
    rec.sock = nil
  end
end

-- Resume a suspended thread with values, if it is still waiting for that token. The loop's
-- own wake-ups pass one of the constant argument lists below (read only: no table per wake-up).
local READY, TIMEOUT, CLOSED = { n = 1, "ready" }, { n = 2, false, "timeout" }, { n = 1, "closed" }
local function wake_with(rec, token, args)
  if not rec.waiting or rec.token ~= token or rec.dead then return false end
  rec.waiting = false
  rec.token = rec.token + 1
  drop_socket_wait(rec)
  forget_timer(rec)
  rec.wake_args = args
  make_ready(rec)
  return true
end
local function wake(rec, token, ...)
  if not rec.waiting or rec.token ~= token or rec.dead then return false end
  return wake_with(rec, token, { n = select("#", ...), ... })
end

-- Suspend the running thread; deadline (absolute) wakes it with `false` ("timeout").
local function suspend(rec, deadline)
  rec.waiting = true
  -- (in simulation a timeout due now is the turn's own: sim.due takes it)
  if deadline and not (direct and sim.due(rec, deadline)) then
    if sched then
      sched.deadline(rec, deadline)
    else
      timer_seq = timer_seq + 1
      local e = rec.timer
      if not e then
        e = { deadline, timer_seq, false, rec, 0 }
        rec.timer = e
      end
      e[5] = rec.token
      heap.move(timers, e, deadline, timer_seq)   -- not queued (removed or fired): pushed
    end
    rec.timed = true
    ntimed = ntimed + 1
  end
  return yield(SUSPEND)
end

function M.thread(f)
  if type(f) == "table" then
    local list = {}
    for i, g in ipairs(f) do list[i] = M.thread(g) end
    return list
  end
  if type(f) ~= "function" then error("events.thread: function expected, got " .. type(f), 2) end
  local co = trace.adopt(create(f))   -- a thread started for an operation works for it too
  local rec = { co = co, token = 0, waiting = false }
  recs[co] = rec
  count = count + 1
  make_ready(rec)
  return co
end

-- Number of live threads (node.lua runs the loop after the app when this is > 0).
function M.pending() return count end

function M.sleep(t)
  t = tonumber(t) or 0
  local rec = current()
  if not rec then return platform.sleep(t) end
  suspend(rec, platform.now() + (t > 0 and t or 0))
end

function M.yield()
  local rec = current()
  if rec then yield() end
end

-- Wait until a raw transport socket is readable ("r") or writable ("w"), or the deadline.
-- Outside a thread it blocks the process in select. Returns true when ready.
function M.wait_socket(raw, dir, deadline)
  local rec = current()
  if not rec then
    local timeout = deadline and (deadline - platform.now()) or nil
    local r, w = platform.select(dir == "r" and { raw } or {}, dir == "w" and { raw } or {}, timeout)
    return (dir == "r" and r[1] ~= nil) or (dir == "w" and w[1] ~= nil)
  end
  local map = dir == "r" and readers or writers
  if map[raw] and map[raw] ~= rec then
    error("events: two threads wait on the same socket", 2)
  end
  map[raw] = rec
  nsock = nsock + 1
  rec.sock, rec.dir = raw, dir
  -- the simulator wakes a thread when its socket becomes readable: one already ready (or a
  -- writer: the simulator's writes never block) is ready at once, as the loop's poll finds it
  if direct and (dir == "w" or raw:readable()) then
    rec.waiting = true
    wake_with(rec, rec.token, READY)
    yield(SUSPEND)
    return rec.wake_args[1] == "ready"
  end
  suspend(rec, deadline)
  return rec.wake_args[1] == "ready"
end

-- A socket is being closed: the thread waiting on it (if any; only readers when dir is "r")
-- wakes as "not ready".
function M.cancel_socket(raw, dir)
  for _, map in ipairs(dir == "r" and { readers } or { readers, writers }) do
    local rec = map[raw]
    if rec then wake_with(rec, rec.token, CLOSED) end
  end
end

function M.kill(co)
  local rec = recs[co]
  if not rec or rec.dead then return false end
  rec.dead = true
  rec.waiting = false
  drop_socket_wait(rec)
  forget_timer(rec)
  recs[co] = nil
  count = count - 1
  if running() == co then yield(KILLED) end
  return true
end

function M.status(co)
  local rec = recs[co]
  if not rec then return "dead" end
  if running() == co then return "running" end
  if rec.waiting then return "waiting" end
  return costatus(co) == "dead" and "dead" or "ready"
end

function M.dead(co) return M.status(co) == "dead" end

-- Ends the instance: on_exit (node.lua: flush and exit 0) normally does not return; if it
-- does (specs), the loop stops and forgets every thread.
function M.exit()
  exiting = true
  M.on_exit()
  if current() then yield(KILLED) end
end

-- graceful leave (events_leave), semaphores and locks (events_locks), fire, wait, periodic (events_named)
leave.attach(M)
M.on_leave = leave.on_leave
locks.attach(M, { current = current, suspend = suspend, wake = wake })
named.attach(M, { current = current, suspend = suspend, wake = wake })
M.periodic, M.fire, M.wait = named.periodic, named.fire, named.wait
M.semaphore, M.lock, M.synchronize = locks.semaphore, locks.lock, locks.synchronize

-- the loop ---------------------------------------------------------------------------------
local function step(rec)
  if rec.dead then return end
  local args = rec.wake_args   -- read by the thread right after its suspend() returns
  local ok, what
  if args then ok, what = resume(rec.co, unpack(args, 1, args.n)) else ok, what = resume(rec.co) end
  if not ok then
    rec.dead = true
    recs[rec.co] = nil
    count = count - 1
    M.on_error(rec.co, what)
    return
  end
  if costatus(rec.co) == "dead" and not rec.dead then
    rec.dead = true
    recs[rec.co] = nil
    count = count - 1
  end
  -- SUSPEND: the thread registered its wake-up; plain yield: M.yield queued it already
  if what ~= SUSPEND and what ~= KILLED and not rec.dead and not rec.waiting then
    make_ready(rec)
  end
end

-- The ready threads, in order; two arrays in turn: threads made ready by this round go to the other.
local function run_round()
  local batch = ready
  ready, spare = spare, batch
  for _, rec in ipairs(batch) do
    step(rec)
    if exiting then break end
  end
  for i = #batch, 1, -1 do batch[i] = nil end
end

-- the simulator's side (splaylab.events_sim): what it needs of this scheduler
if sim then
  sim.attach(sched, {
    step = step, wake_with = wake_with, run_round = run_round, TIMEOUT = TIMEOUT,
    has_ready = function() return ready[1] ~= nil end,
    exiting = function() return exiting end,
    waiting = function() return nsock > 0 or ntimed > 0 end,   -- on a socket or a deadline
    fire_deadline = function(rec, token)   -- the kernel pops rec's deadline: true to run it
      rec.timed = nil   -- this entry is gone
      ntimed = ntimed - 1
      if not rec.waiting or rec.token ~= token or rec.dead then return false end
      rec.waiting = false
      rec.token = rec.token + 1
      drop_socket_wait(rec)
      rec.wake_args = TIMEOUT
      return true
    end,
  })
end

-- a socket became readable (a message arrived, the peer closed): its thread is ready
local function socket_ready(raw)
  local rec = readers[raw]
  if rec then wake_with(rec, rec.token, READY) end
end
if sim then sched.attach(sim.run_ready, sim.run_deadline, socket_ready) end

local function fire_timers(now)
  while timers[1] and timers[1][1] <= now do
    local t = heap.pop(timers)
    local rec = t[4]
    rec.timed = nil   -- this entry is gone
    ntimed = ntimed - 1
    wake_with(rec, t[5], TIMEOUT)
  end
end

-- select over the sockets threads wait on and the leave signal
local function poll_sockets(timeout)
  local leave_signal = platform.leave_signal()
  local rr, ww = platform.poll(readers, writers, leave_signal, timeout)
  local leave_requested = false
  for _, s in ipairs(rr or NONE) do
    if s == leave_signal then
      leave_requested = true
    else
      local rec = readers[s]
      if rec then wake_with(rec, rec.token, READY) end
    end
  end
  for _, s in ipairs(ww or NONE) do
    local rec = writers[s]
    if rec then wake_with(rec, rec.token, READY) end
  end
  -- after the wake-ups: a handler then runs in the same round as the data that arrived
  if leave_requested then leave.requests(leave_signal:received()) end
end

-- M.on_idle(): called once, the first time the loop has nothing to run and is about to block
-- (node.lua: a full garbage collection once the app has set itself up).
local idle_done = false
local function idle()
  if idle_done then return end
  idle_done = true
  if M.on_idle then M.on_idle() end
end

function M.run(f)
  if f ~= nil then M.thread(f) end
  if looping then return end   -- run() from inside a thread only schedules f
  looping = true
  if sim then   -- the kernel runs the threads: wait for a leave request or the end
    direct = true
    for i, rec in ipairs(ready) do ready[i] = nil; make_ready(rec) end
    sim.wait(idle)
    direct = false
  end
  while not exiting do
    fire_timers(platform.now())
    if #ready > 0 then
      run_round()
      -- poll between rounds only when threads are still ready (no starvation); otherwise the
      -- next round blocks in select anyway, and a second select here would cost a syscall
      if #ready > 0 and not exiting then
        if nsock > 0 then poll_sockets(0) else leave.poll() end
      end
    -- only sleepers and a leave signal: select on the signal, so a leave cuts the sleep short
    elseif nsock > 0 or (timers[1] and platform.leave_signal()) then
      idle()
      local timeout = timers[1] and (timers[1][1] - platform.now()) or nil
      poll_sockets(trace.flush_due(timeout))
    elseif timers[1] then
      idle()
      platform.sleep(trace.flush_due(timers[1][1] - platform.now()))
    else
      break
    end
  end
  if exiting then
    recs, ready, spare, timers, readers, writers = {}, {}, {}, {}, {}, {}
    named.reset()
    nsock, count, exiting, ntimed = 0, 0, false, 0
    leave.reset()
  end
  looping = false
end

M.loop = M.run

return M
