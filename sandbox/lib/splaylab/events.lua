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
The functions are splaylab.events_core's, one set for every node of a process (in the simulator,
10,000 nodes), each node's module over a state of its own: events_core's header says how.
Limits: socket.select is bounded by FD_SETSIZE (1024 sockets waited on at once). A leave
request is seen only when the loop runs: a thread that computes without yielding, or code
blocking outside a thread, delays it (up to the host's SIGKILL).
]]
local platform = require "splaylab.platform"
local trace = require "splaylab.trace"
local leave = require "splaylab.events_leave"
local locks = require "splaylab.events_locks"
local named = require "splaylab.events_named"
local core = require "splaylab.events_core"
local loop = require "splaylab.events_loop"

local M = { _NAME = "splaylab.events", _VERSION = "0.4", settings = { poll_every = 1, leave_poll = 0.05 } }

local error, tostring, traceback = error, tostring, debug.traceback

M.on_error = function(co, err) error(traceback(co, tostring(err)), 0) end
M.on_exit = function() platform.exit(0) end

-- this node's state; the functions, shared (thread, sleep, yield, wait_socket, cancel_socket,
-- kill, status, dead, exit, pending; run: events_loop)
local S = core.state(M, platform, trace, leave, named)
for name, f in pairs(core.api) do M[name] = f end
M.run, M.loop = loop.run, loop.run

-- graceful leave (events_leave), semaphores and locks (events_locks), fire, wait, periodic (events_named)
leave.attach(M)
M.on_leave = leave.on_leave
locks.attach(M, core.scheduler)
named.attach(M, core.scheduler)
M.periodic, M.fire, M.wait = named.periodic, named.fire, named.wait
M.semaphore, M.lock, M.synchronize = locks.semaphore, locks.lock, locks.synchronize

-- the simulator's kernel runs the threads (splaylab.events_sim)
local sched = S[core.ST.SCHED]
if sched then sched.attach(S, require "splaylab.events_sim") end

return M
