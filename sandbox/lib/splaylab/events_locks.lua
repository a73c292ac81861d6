--[[
splaylab.events_locks - SPLAY's semaphores and locks of splaylab.events: events.semaphore,
events.lock and events.synchronize, on the scheduler's own suspend and wake-up.

API given to student code (through splaylab.events, SPLAY's):
  events.semaphore(max) -> sem    sem:lock([timeout]) -> true | false (timeout), sem:unlock()
                                  (also sem.lock(timeout), sem.unlock())
  events.lock()                   a semaphore of 1
  events.synchronize(f [, timeout]) -> f's results | nil, "timeout"
                                  run f under the module's one lock (f's error is raised again
                                  after the unlock)
Runtime side: locks.attach(events, {current, suspend, wake}) - splaylab.events hands over its
  scheduler: current() -> the running thread's record (nil outside a thread), suspend(rec,
  deadline) and wake(rec, token, ...) -> bool (its record's token and wake-up values: events_core.REC).
unlock hands the slot to the first waiter still waiting, in arrival order (FIFO); a waiter
whose timeout passed leaves the queue. An unlock with no slot taken does nothing.
Limits: lock outside an events thread raises when it would block (nothing could wake it); no
owner is recorded (any thread may unlock) and a lock is not recursive: a thread locking it
twice waits for its timeout or another thread's unlock.
]]
local platform = require "splaylab.platform"

local M = { _NAME = "splaylab.events_locks", _VERSION = "0.1" }

local ipairs, error, tonumber, select, unpack = ipairs, error, tonumber, select, unpack

local events, current, suspend, wake   -- splaylab.events and its scheduler (M.attach)
local TOKEN, WAKE_ARGS                 -- a thread's record's slots (the scheduler's REC)

function M.attach(ev, core)
  events, current, suspend, wake = ev, core.current, core.suspend, core.wake
  TOKEN, WAKE_ARGS = core.REC.TOKEN, core.REC.WAKE_ARGS
end

function M.semaphore(max)
  max = tonumber(max) or 1
  local sem = { free = max, queue = {} }
  function sem.lock(self, timeout)
    if self ~= sem then timeout = self end
    if sem.free > 0 then sem.free = sem.free - 1; return true end
    local rec = current()
    if not rec then error("events.semaphore: lock would block outside an events thread", 2) end
    local entry = { rec, rec[TOKEN] }
    sem.queue[#sem.queue + 1] = entry
    suspend(rec, tonumber(timeout) and platform.now() + tonumber(timeout))
    if rec[WAKE_ARGS][1] == true then return true end   -- handed over by unlock
    for i, e in ipairs(sem.queue) do if e == entry then table.remove(sem.queue, i); break end end
    return false
  end
  function sem.unlock()
    while sem.queue[1] do
      local e = table.remove(sem.queue, 1)
      if wake(e[1], e[2], true) then return end   -- the slot passes to that thread
    end
    if sem.free < max then sem.free = sem.free + 1 end
  end
  return sem
end

function M.lock() return events.semaphore(1) end

local sync_lock
function M.synchronize(f, timeout)
  sync_lock = sync_lock or events.lock()
  if not sync_lock:lock(timeout) then return nil, "timeout" end
  local res = { n = 0 }
  local function pack(...) res = { n = select("#", ...), ... } end
  pack(pcall(f))
  sync_lock:unlock()
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, res.n)
end

return M
