--[[
splaylab.events_leave - the graceful leave of splaylab.events (a SplayLab addition, not in
SPLAY): events.on_leave and what the loop does on the host's leave request (churn
`leave N gracefully`: SIGTERM, then SIGKILL after the grace period, 2 s in run_local).

Runtime side only (splaylab.events; student code gets events.on_leave alone):
  leave.attach(events)            the events module whose thread/exit/settings it uses
  leave.on_leave(f)               events.on_leave: f runs on a leave request (several may be
                                  registered; one registered by a running handler runs too)
  leave.requests(n)               n leave requests were read from platform.leave_signal()
  leave.poll()                    a loop kept busy by ready threads: read the signal directly,
                                  at most every events.settings.leave_poll s (a system call)
  leave.reset()                   forget the handlers and the request (events.exit)
On a request: without handlers, an info record "left gracefully" and events.exit(); else an
info record "leaving gracefully", each handler starts as a thread (in registration order,
side by side with the app's threads) and the node exits when the last one returns ("left
gracefully"); a handler may also call events.exit(). A second request ends the node at once.
Limits: the request is seen only when the loop runs (splaylab.events' header).
]]
local platform = require "splaylab.platform"
local output = require "splaylab.output"

local M = { _NAME = "splaylab.events_leave", _VERSION = "0.1" }

local type, ipairs, error = type, ipairs, error

local events               -- the events module (M.attach)
local leave_handlers = {}  -- functions given to on_leave, in order
local leaving = false      -- a leave request arrived: the handlers are running
local handlers_left = 0    -- leave handlers that have not returned yet
local next_leave_poll = 0  -- when a busy loop reads the leave signal next

function M.attach(ev) events = ev end

local function leave_now(text)
  output.write("info", text)
  events.exit()
end

local function start_leave_handler(f)
  handlers_left = handlers_left + 1
  events.thread(function()
    f()
    handlers_left = handlers_left - 1
    if handlers_left == 0 then leave_now("left gracefully") end
  end)
end

-- `requests` leave requests were read from the leave signal (usually 0 or 1).
function M.requests(requests)
  if requests == 0 then return end
  if leaving then return leave_now("left at once: a second leave request came during the on_leave handlers") end
  leaving = true
  if #leave_handlers == 0 then return leave_now("left gracefully") end
  output.write("info", "leaving gracefully")
  for _, f in ipairs(leave_handlers) do start_leave_handler(f) end
end

function M.on_leave(f)
  if type(f) ~= "function" then error("events.on_leave: function expected, got " .. type(f), 2) end
  leave_handlers[#leave_handlers + 1] = f
  if leaving then start_leave_handler(f) end   -- registered by a running handler: runs too
end

-- Threads that stay ready never let the loop block in select: read the leave signal
-- directly then, at most every settings.leave_poll seconds (each read is a system call).
function M.poll()
  local leave_signal = platform.leave_signal()
  if not leave_signal then return end
  local now = platform.now()
  if now < next_leave_poll then return end
  next_leave_poll = now + events.settings.leave_poll
  M.requests(leave_signal:received())
end

function M.reset()
  leave_handlers, leaving, handlers_left, next_leave_poll = {}, false, 0, 0
end

return M
