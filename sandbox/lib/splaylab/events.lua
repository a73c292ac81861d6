--[[
splaylab.events - a minimal cooperative scheduler on coroutines (SPLAY's events, subset).

API given to student code:
  events.thread(f | {f1, f2, ...}) -> thread     start a thread (runs when the loop runs)
  events.run(f) / events.loop(f)                 schedule f (if given) and run the loop until
                                                 no thread is left or events.exit() is called
  events.sleep(t)    yield for t seconds (outside a thread: a plain blocking sleep)
  events.yield()     let the other ready threads run
  events.periodic(t, f) or (f, t) -> thread      call f now, then every t seconds
  events.exit()      end the instance (exit code 0)
Limits: no fire/wait, locks, semaphores or socket integration yet (full SPLAY API later).
An error in a thread ends the instance: M.on_error(co, err) is set by node.lua (the default
re-raises with the thread's traceback). When nothing is runnable the loop blocks in
socket.sleep until the earliest sleeper is due.
]]
local socket = require "socket"

local M = { _NAME = "splaylab.events", _VERSION = "0.1" }

local create, resume, yield, status, running =
  coroutine.create, coroutine.resume, coroutine.yield, coroutine.status, coroutine.running
local gettime, sleep = socket.gettime, socket.sleep
local type, ipairs, error, tonumber, remove, insert = type, ipairs, error, tonumber, table.remove, table.insert
local traceback = debug.traceback

local SLEEP = {}           -- sentinel yielded by events.sleep
local threads = {}         -- coroutine -> true, for every live events thread
local ready = {}           -- coroutines to resume next round, in order
local sleepers = {}        -- {wake, co}, sorted by wake time
local looping = false
local exiting = false
local count = 0

M.on_error = function(co, err)
  error(traceback(co, tostring(err)), 0)
end

M.on_exit = function() os.exit(0) end

function M.thread(f)
  if type(f) == "table" then
    local list = {}
    for i, g in ipairs(f) do list[i] = M.thread(g) end
    return list
  end
  if type(f) ~= "function" then error("events.thread: function expected, got " .. type(f), 2) end
  local co = create(f)
  threads[co] = true
  count = count + 1
  ready[#ready + 1] = co
  return co
end

-- Number of live threads (node.lua runs the loop after the app when this is > 0).
function M.pending() return count end

local function in_thread()
  local co = running()
  return co ~= nil and threads[co] == true
end

function M.sleep(t)
  t = tonumber(t) or 0
  if not in_thread() then
    if t > 0 then sleep(t) end
    return
  end
  yield(SLEEP, gettime() + t)
end

function M.yield()
  if in_thread() then yield() end
end

function M.periodic(a, b)
  local period, f = a, b
  if type(a) == "function" then period, f = b, a end
  period = tonumber(period)
  if not period or period < 0 or type(f) ~= "function" then
    error("events.periodic: expected (seconds, function) or (function, seconds)", 2)
  end
  return M.thread(function()
    while true do
      f()
      M.sleep(period)
    end
  end)
end

-- Ends the instance: on_exit (node.lua: flush and exit 0) normally does not return; if it
-- does, the loop stops and forgets every thread.
function M.exit()
  exiting = true
  M.on_exit()
  if in_thread() then yield() end
end

local function add_sleeper(wake, co)
  local i = #sleepers
  while i > 0 and sleepers[i][1] > wake do i = i - 1 end
  insert(sleepers, i + 1, { wake, co })
end

local function step(co)
  local ok, what, arg = resume(co)
  if not ok then
    threads[co] = nil
    count = count - 1
    M.on_error(co, what)
    return
  end
  if status(co) == "dead" then
    threads[co] = nil
    count = count - 1
  elseif what == SLEEP then
    add_sleeper(arg, co)
  else
    ready[#ready + 1] = co
  end
end

function M.run(f)
  if f ~= nil then M.thread(f) end
  if looping then return end   -- run() from inside a thread only schedules f
  looping = true
  while not exiting do
    local now = gettime()
    while sleepers[1] and sleepers[1][1] <= now do
      ready[#ready + 1] = remove(sleepers, 1)[2]
    end
    if #ready > 0 then
      local batch = ready
      ready = {}
      for _, co in ipairs(batch) do step(co) end
    elseif sleepers[1] then
      sleep(sleepers[1][1] - now)
    else
      break
    end
  end
  if exiting then
    threads, ready, sleepers, count, exiting = {}, {}, {}, 0, false
  end
  looping = false
end

M.loop = M.run

return M
