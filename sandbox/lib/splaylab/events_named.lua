--[[
splaylab.events_named - SPLAY's named events and periodic threads of splaylab.events:
events.fire, events.wait and events.periodic, on the scheduler's own suspend and wake-up.

API given to student code (through splaylab.events, SPLAY's):
  events.fire(name, ...) -> n          wake every thread waiting on name (n of them), with ...
  events.wait(name [, timeout]) -> true, ... | false   (false on timeout; only in a thread)
  events.periodic(t, f) or (f, t) -> th   every t seconds (the first after t), f in a thread of
                                       its own; a tick is skipped while the previous call still
                                       runs (SPLAY's semantics)
Runtime side: named.attach(events, {current, suspend, wake}) as splaylab.events_locks gets it;
  named.reset() forgets every waiter (events.exit).
A thread waiting on a name without a timeout can be woken only by a fire: when nothing else is
left to run, the events loop ends and drops it (splaylab.events' header).
]]
local platform = require "splaylab.platform"

local M = { _NAME = "splaylab.events_named", _VERSION = "0.1" }

local type, ipairs, error, tonumber, unpack = type, ipairs, error, tonumber, unpack

local events, current, suspend, wake   -- splaylab.events and its scheduler (M.attach)
local TOKEN, WAKE_ARGS                 -- a thread's record's slots (the scheduler's REC)
local waiters = {}                     -- event name -> list of {rec, token}

function M.attach(ev, core)
  events, current, suspend, wake = ev, core.current, core.suspend, core.wake
  TOKEN, WAKE_ARGS = core.REC.TOKEN, core.REC.WAKE_ARGS
end

function M.reset() waiters = {} end

function M.periodic(a, b)
  local period, f = a, b
  if type(a) == "function" then period, f = b, a end
  period = tonumber(period)
  if not period or period < 0 or type(f) ~= "function" then
    error("events.periodic: expected (seconds, function) or (function, seconds)", 2)
  end
  -- As SPLAY's events.periodic: wait a period first, start each call as a thread of its own,
  -- skip a tick while the previous call runs (SPLAY's own apps rely on the first wait: its
  -- cyclon.lua's first shuffle comes one period after it sets the periodic).
  return events.thread(function()
    local next_at, call = platform.now(), nil
    while true do
      next_at = next_at + period
      local now = platform.now()
      if next_at < now then next_at = now end
      events.sleep(next_at - now)
      if not call or events.dead(call) then call = events.thread(f) end
    end
  end)
end

function M.fire(name, ...)
  local list = waiters[name]
  if not list then return 0 end
  waiters[name] = nil
  local n = 0
  for _, w in ipairs(list) do
    if wake(w[1], w[2], true, ...) then n = n + 1 end
  end
  return n
end

function M.wait(name, timeout)
  local rec = current()
  if not rec then error("events.wait: only inside an events thread", 2) end
  local list = waiters[name]
  if not list then list = {}; waiters[name] = list end
  list[#list + 1] = { rec, rec[TOKEN] }
  local deadline = timeout and tonumber(timeout) and platform.now() + tonumber(timeout)
  suspend(rec, deadline)
  local args = rec[WAKE_ARGS]
  if args[1] ~= true then
    -- timed out: forget our entry
    local l = waiters[name]
    if l then
      for i = #l, 1, -1 do if l[i][1] == rec then table.remove(l, i) end end
      if #l == 0 then waiters[name] = nil end
    end
    return false
  end
  return unpack(args, 1, args.n)
end

return M
