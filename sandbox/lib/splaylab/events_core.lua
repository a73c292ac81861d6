--[[
splaylab.events_core - the functions of splaylab.events, one set for every node of a process.

A node's events module (splaylab.events) is a table of these functions over a state of its own:
its threads, ready lists, timers, the sockets its threads wait on (C.state). Live, the process
has one node and one state. In the simulator every node has a state and shares the functions:
their code and closures are the same objects for 10,000 nodes, so what a call touches of a node
is its state table and its threads, not a copy of the module (docs/simulation.md, "The runtime's
layout": a call cost 5x more at 10,000 nodes than at 64 with a copy per node).

Which state a function works on:
  - what the scheduler does to a thread (wake it, suspend it, run it, its deadline, its socket)
    works on the thread's own node: its record holds it (rec[STATE]);
  - what the node's own code calls (events.thread, sleep, wait_socket, exit, run...) works on
    the state of the node whose code runs: `cur`, the state made last (live: the only one) or
    the one the simulator's kernel enters (C.use: it enters a node to resume its coroutine, and
    events_sim's run_ready and run_deadline enter the node of the thread they run). A node's
    code runs only there, so it only ever reaches its own state; what runs for another node in
    the meantime (a message delivered: socket_ready) is handed that node's state.
Nothing here is reachable from student code but the API functions themselves.

Runtime side only: splaylab.events (C.state, C.api, C.scheduler), splaylab.events_loop (the
loop: api.run), splaylab.events_sim (the rest of C's fields it reads); C.state_of(events module)
for a node's other modules that keep their state in its table (splaylab.rpc: its RPC slot), and
C.current_state() for their shared functions, as the API's (`cur`). The API and the loop's
rules: splaylab.events' header.
]]
local heap = require "splaylab.heap"
local new_table = require "table.new"   -- LuaJIT: a table with its array part sized

local C = { _NAME = "splaylab.events_core", _VERSION = "0.1" }

local create, resume, yield, costatus, running =
  coroutine.create, coroutine.resume, coroutine.yield, coroutine.status, coroutine.running
local type, ipairs, error, tonumber, select, unpack = type, ipairs, error, tonumber, select, unpack

-- A thread's record: an array, each field at a fixed slot (C.REC names them for the other users
-- of the scheduler: events_loop, events_locks, events_named, the simulator's kernel). Every event
-- of a simulation wakes and runs a thread: its record's fields then lie in about three cache
-- lines (the array is allocated with the table), where named fields spread over a hash part of
-- 16 slots of 40 bytes, ten lines (docs/simulation.md, fourteenth session: fewer cache misses).
local CO, STATE, TOKEN, WAITING, WAKE_ARGS, SOCK, DIR, TIMED, DEAD, DEADLINE, TIMER =
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
--   CO the coroutine; STATE the node's state (S); TOKEN counts its wake-ups (a wake-up for an
--   older token is stale); WAITING suspended; WAKE_ARGS what its suspend() returns {n = k, ...};
--   SOCK, DIR the socket it waits on and "r" | "w"; TIMED it has a deadline queued; DEAD ended
--   or killed; DEADLINE the kernel's entry (simulation), TIMER the live loop's heap entry
C.REC = { CO = CO, STATE = STATE, TOKEN = TOKEN, WAITING = WAITING, WAKE_ARGS = WAKE_ARGS, SOCK = SOCK,
  DIR = DIR, TIMED = TIMED, DEAD = DEAD, DEADLINE = DEADLINE, TIMER = TIMER }

local SUSPEND = {}         -- sentinel yielded by a thread that registered its own wake-up
local KILLED = {}          -- sentinel yielded by a thread that killed itself
-- The loop's own wake-ups pass one of these argument lists (read only: no table per wake-up).
local READY, TIMEOUT, CLOSED = { n = 1, "ready" }, { n = 2, false, "timeout" }, { n = 1, "closed" }
C.READY, C.TIMEOUT = READY, TIMEOUT

local cur   -- the state of the node whose code runs (see the header)
-- each node's events module -> its state: how a node's other modules (splaylab.rpc) find the
-- state to keep theirs in (a module of the runtime, never reached from student code)
local state_of_module = setmetatable({}, { __mode = "k" })

-- A node's state: an array too, each field at a fixed slot (C.ST names them for events_loop,
-- events_sim, the kernel and the rpc modules), the ones every simulated event reads first, so
-- that they share the array's first cache lines (where a hash part of 32 slots spread them over
-- twelve: docs/simulation.md, fifteenth session).
local S_IN_TURN, S_QUEUED, S_READY, S_EXITING, S_NSOCK, S_NTIMED, S_SCHED, S_DIRECT, S_DUE_REC,
  S_DUE_TOKEN, S_READERS, S_RECS, S_NODE, S_RPC, S_PLATFORM, S_COUNT, S_WRITERS, S_URPC, S_SPARE,
  S_M, S_TRACE, S_LEAVE, S_NAMED, S_TIMERS, S_LOOPING, S_IDLE_DONE, S_TIMER_SEQ =
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27
--   IN_TURN one of the node's threads runs (simulator: a turn, splaylab.events_sim); QUEUED its
--   ready events posted to the kernel, not run yet; READY, SPARE the records to resume next
--   round, in order, and the round being run; EXITING events.exit was called; NSOCK, COUNT,
--   NTIMED its threads waiting on a socket, alive, with a deadline; SCHED the simulator's kernel
--   (false live: it runs the threads itself); DIRECT the kernel runs the threads now (the loop
--   started); DUE_REC, DUE_TOKEN threads that slept until now, in this turn; READERS, WRITERS raw
--   socket -> record; RECS coroutine -> record (C.REC); NODE the kernel's record of the node
--   (kernel: sched.attach); RPC, URPC the state of splay.rpc and splay.urpc (splaylab.rpc_core,
--   urpc_core); PLATFORM, M (its events module: hooks on_error, on_exit, on_idle), TRACE, LEAVE,
--   NAMED the node's modules; TIMERS the live loop's splaylab.heap of {when, seq, pos, rec, token}
--   (one entry per record); LOOPING events.run runs; IDLE_DONE on_idle was called; TIMER_SEQ
--   the timers' last sequence number
C.ST = { IN_TURN = S_IN_TURN, QUEUED = S_QUEUED, READY = S_READY, EXITING = S_EXITING, NSOCK = S_NSOCK,
  NTIMED = S_NTIMED, SCHED = S_SCHED, DIRECT = S_DIRECT, DUE_REC = S_DUE_REC, DUE_TOKEN = S_DUE_TOKEN,
  READERS = S_READERS, RECS = S_RECS, NODE = S_NODE, RPC = S_RPC, PLATFORM = S_PLATFORM, COUNT = S_COUNT,
  WRITERS = S_WRITERS, URPC = S_URPC, SPARE = S_SPARE, M = S_M, TRACE = S_TRACE, LEAVE = S_LEAVE,
  NAMED = S_NAMED, TIMERS = S_TIMERS, LOOPING = S_LOOPING, IDLE_DONE = S_IDLE_DONE, TIMER_SEQ = S_TIMER_SEQ }

--- A node's state (C.ST): M its events module, and the node's own platform, trace,
--- events_leave and events_named. Becomes the current one.
function C.state(M, platform, trace, leave, named)
  local S = new_table(S_TIMER_SEQ, 0)   -- the array at its size at once (no growth, one block)
  S[S_IN_TURN], S[S_QUEUED], S[S_READY], S[S_EXITING] = false, 0, {}, false
  S[S_NSOCK], S[S_NTIMED], S[S_SCHED], S[S_DIRECT] = 0, 0, platform.scheduler or false, false
  S[S_DUE_REC], S[S_DUE_TOKEN], S[S_READERS], S[S_RECS] = {}, {}, {}, {}
  S[S_NODE], S[S_RPC], S[S_PLATFORM], S[S_COUNT] = false, false, platform, 0
  S[S_WRITERS], S[S_URPC], S[S_SPARE], S[S_M] = {}, false, {}, M
  S[S_TRACE], S[S_LEAVE], S[S_NAMED], S[S_TIMERS] = trace, leave, named, {}
  S[S_LOOPING], S[S_IDLE_DONE], S[S_TIMER_SEQ] = false, false, 0
  cur = S
  state_of_module[M] = S
  return S
end

--- The state of the node whose events module is M.
function C.state_of(M) return state_of_module[M] end

--- The simulator's kernel runs code of the node whose state S is.
function C.use(S) cur = S end
function C.current_state() return cur end

-- timers -----------------------------------------------------------------------------------
-- Timers due at the same instant fire in the order they were set (a sequence number breaks
-- ties): in the simulator, where instants coincide, the order then depends on nothing else.
-- A thread woken before its deadline takes its entry out of the heap at once (splaylab.heap
-- keeps each entry's index): a stale entry would keep the thread (its coroutine and stack)
-- alive until the deadline (rpc: 60 s), and dropping them in bulk cost 3 % of a simulated
-- Chord. Each thread reuses its one entry.
local function forget_timer(S, rec)
  if rec[TIMED] then
    rec[TIMED] = false
    S[S_NTIMED] = S[S_NTIMED] - 1
    local sched = S[S_SCHED]
    if sched then sched.cancel(rec) else heap.remove(S[S_TIMERS], rec[TIMER]) end
  end
end

-- A thread is ready. In the simulator, once the loop runs, outside a turn of this node's
-- threads: an event of the kernel's queue (events_sim); else the next round's.
local function make_ready(S, rec)
  if S[S_DIRECT] and not S[S_IN_TURN] then
    S[S_QUEUED] = S[S_QUEUED] + 1
    S[S_SCHED].ready(rec)
  else
    local ready = S[S_READY]
    ready[#ready + 1] = rec
  end
end
C.make_ready = make_ready

-- threads ----------------------------------------------------------------------------------
local function current(S)
  local co = running()
  return co and S[S_RECS][co]
end

local function drop_socket_wait(S, rec)
  local sock = rec[SOCK]
  if sock then
    local map = rec[DIR] == "r" and S[S_READERS] or S[S_WRITERS]
    if map[sock] == rec then map[sock] = nil; S[S_NSOCK] = S[S_NSOCK] - 1 end
    rec[SOCK] = false
  end
end

-- Resume a suspended thread with values, if it is still waiting for that token.
local function wake_with(rec, token, args)
  if not rec[WAITING] or rec[TOKEN] ~= token or rec[DEAD] then return false end
  local S = rec[STATE]
  rec[WAITING] = false
  rec[TOKEN] = token + 1
  drop_socket_wait(S, rec)
  forget_timer(S, rec)
  rec[WAKE_ARGS] = args
  make_ready(S, rec)
  return true
end
C.wake_with = wake_with

local function wake(rec, token, ...)
  if not rec[WAITING] or rec[TOKEN] ~= token or rec[DEAD] then return false end
  return wake_with(rec, token, { n = select("#", ...), ... })
end

-- Suspend the running thread; deadline (absolute) wakes it with `false` ("timeout").
local function suspend(rec, deadline)
  rec[WAITING] = true
  if deadline then
    local S = rec[STATE]
    if S[S_IN_TURN] and deadline <= S[S_PLATFORM].now() then
      -- in simulation a timeout due now is the turn's own (events_sim.run_turn takes it)
      local due_rec = S[S_DUE_REC]
      local n = #due_rec + 1
      due_rec[n], S[S_DUE_TOKEN][n] = rec, rec[TOKEN]
    else
      local sched = S[S_SCHED]
      if sched then
        sched.deadline(rec, deadline)
      else
        local seq = S[S_TIMER_SEQ] + 1
        S[S_TIMER_SEQ] = seq
        local e = rec[TIMER]
        if not e then
          e = { deadline, seq, false, rec, 0 }
          rec[TIMER] = e
        end
        e[5] = rec[TOKEN]
        heap.move(S[S_TIMERS], e, deadline, seq)   -- not queued (removed or fired): pushed
      end
      rec[TIMED] = true
      S[S_NTIMED] = S[S_NTIMED] + 1
    end
  end
  return yield(SUSPEND)
end

-- what events_locks and events_named get of the scheduler
C.scheduler = { current = function() return current(cur) end, suspend = suspend, wake = wake, REC = C.REC }

-- the API: the node's own code calls these (`cur`) ------------------------------------------
local api = {}
C.api = api

function api.thread(f)
  if type(f) == "table" then
    local list = {}
    for i, g in ipairs(f) do list[i] = api.thread(g) end
    return list
  end
  if type(f) ~= "function" then error("events.thread: function expected, got " .. type(f), 2) end
  local S = cur
  local co = S[S_TRACE]:adopt(create(f))   -- a thread started for an operation works for it too
  local rec = { co, S, 0, false, false, false, false, false, false, false, false }   -- C.REC
  S[S_RECS][co] = rec
  S[S_COUNT] = S[S_COUNT] + 1
  make_ready(S, rec)
  return co
end

-- Number of live threads (node.lua runs the loop after the app when this is > 0).
function api.pending() return cur[S_COUNT] end

function api.sleep(t)
  t = tonumber(t) or 0
  local S = cur
  local rec = current(S)
  if not rec then return S[S_PLATFORM].sleep(t) end
  suspend(rec, S[S_PLATFORM].now() + (t > 0 and t or 0))
end

function api.yield()
  if current(cur) then yield() end
end

-- Wait until a raw transport socket is readable ("r") or writable ("w"), or the deadline.
-- Outside a thread it blocks the process in select. Returns true when ready.
function api.wait_socket(raw, dir, deadline)
  local S = cur
  local rec = current(S)
  if not rec then
    local platform = S[S_PLATFORM]
    local timeout = deadline and (deadline - platform.now()) or nil
    local r, w = platform.select(dir == "r" and { raw } or {}, dir == "w" and { raw } or {}, timeout)
    return (dir == "r" and r[1] ~= nil) or (dir == "w" and w[1] ~= nil)
  end
  local map = dir == "r" and S[S_READERS] or S[S_WRITERS]
  if map[raw] and map[raw] ~= rec then
    error("events: two threads wait on the same socket", 2)
  end
  map[raw] = rec
  S[S_NSOCK] = S[S_NSOCK] + 1
  rec[SOCK], rec[DIR] = raw, dir
  -- the simulator wakes a thread when its socket becomes readable: one already ready (or a
  -- writer: the simulator's writes never block) is ready at once, as the loop's poll finds it
  if S[S_DIRECT] and (dir == "w" or raw:readable()) then
    rec[WAITING] = true
    wake_with(rec, rec[TOKEN], READY)
    yield(SUSPEND)
    return rec[WAKE_ARGS][1] == "ready"
  end
  suspend(rec, deadline)
  return rec[WAKE_ARGS][1] == "ready"
end

-- A socket is being closed: the thread waiting on it (if any; only readers when dir is "r")
-- wakes as "not ready".
function api.cancel_socket(raw, dir)
  local S = cur
  local rec = S[S_READERS][raw]
  if rec then wake_with(rec, rec[TOKEN], CLOSED) end
  if dir ~= "r" then
    rec = S[S_WRITERS][raw]
    if rec then wake_with(rec, rec[TOKEN], CLOSED) end
  end
end

function api.kill(co)
  local S = cur
  local rec = S[S_RECS][co]
  if not rec or rec[DEAD] then return false end
  rec[DEAD] = true
  rec[WAITING] = false
  drop_socket_wait(S, rec)
  forget_timer(S, rec)
  S[S_RECS][co] = nil
  S[S_COUNT] = S[S_COUNT] - 1
  if running() == co then yield(KILLED) end
  return true
end

local function status(co)
  local rec = cur[S_RECS][co]
  if not rec then return "dead" end
  if running() == co then return "running" end
  if rec[WAITING] then return "waiting" end
  return costatus(co) == "dead" and "dead" or "ready"
end
api.status = status

function api.dead(co) return status(co) == "dead" end

-- Ends the instance: on_exit (node.lua: flush and exit 0) normally does not return; if it
-- does (specs), the loop stops and forgets every thread.
function api.exit()
  local S = cur
  S[S_EXITING] = true
  S[S_M].on_exit()
  if current(S) then yield(KILLED) end
end

-- the loop ---------------------------------------------------------------------------------
local function step(rec)
  if rec[DEAD] then return end
  local S = rec[STATE]
  local co = rec[CO]
  local args = rec[WAKE_ARGS]   -- read by the thread right after its suspend() returns
  local ok, what
  if not args then ok, what = resume(co)
  elseif args.n == 1 then ok, what = resume(co, args[1])   -- READY, CLOSED: no unpack call
  else ok, what = resume(co, unpack(args, 1, args.n)) end
  if not ok then
    rec[DEAD] = true
    S[S_RECS][co] = nil
    S[S_COUNT] = S[S_COUNT] - 1
    S[S_M].on_error(co, what)
    return
  end
  -- A thread that yielded SUSPEND (most steps) is alive and waiting: coroutine.status, a C
  -- function the JIT does not compile (its trace stops there) that interns a string per call,
  -- is asked only otherwise (a SUSPEND without the wait, which suspend() always registers, too).
  if (what ~= SUSPEND or not rec[WAITING]) and costatus(co) == "dead" and not rec[DEAD] then
    rec[DEAD] = true
    S[S_RECS][co] = nil
    S[S_COUNT] = S[S_COUNT] - 1
  end
  -- SUSPEND: the thread registered its wake-up; plain yield: api.yield queued it already
  if what ~= SUSPEND and what ~= KILLED and not rec[DEAD] and not rec[WAITING] then
    make_ready(S, rec)
  end
end
C.step = step

-- The ready threads, in order; two arrays in turn: threads made ready by this round go to the other.
local function run_round(S)
  local batch = S[S_READY]
  S[S_READY], S[S_SPARE] = S[S_SPARE], batch
  for _, rec in ipairs(batch) do
    step(rec)
    if S[S_EXITING] then break end
  end
  for i = #batch, 1, -1 do batch[i] = nil end
end
C.run_round = run_round

-- The kernel pops rec's deadline: true to run the thread (it timed out).
function C.fire_deadline(rec, token)
  local S = rec[STATE]
  rec[TIMED] = false   -- this entry is gone
  S[S_NTIMED] = S[S_NTIMED] - 1
  if not rec[WAITING] or rec[TOKEN] ~= token or rec[DEAD] then return false end
  rec[WAITING] = false
  rec[TOKEN] = rec[TOKEN] + 1
  drop_socket_wait(S, rec)
  rec[WAKE_ARGS] = TIMEOUT
  return true
end

-- a socket of the node S became readable (a message arrived, the peer closed): its thread is ready
function C.socket_ready(S, raw)
  local rec = S[S_READERS][raw]
  if rec then wake_with(rec, rec[TOKEN], READY) end
end

-- M.on_idle(): called once, the first time the loop has nothing to run and is about to block
-- (node.lua: a full garbage collection once the app has set itself up).
local function idle(S)
  if S[S_IDLE_DONE] then return end
  S[S_IDLE_DONE] = true
  local on_idle = S[S_M].on_idle
  if on_idle then on_idle() end
end
C.idle = idle

return C
