--[[
splaylab.sim.kernel - the discrete-event core of the simulator: a virtual clock, one event queue,
and every node of a job as a coroutine with a platform of its own (splaylab.platform's
functions on virtual time and sim.vnet sockets).

A node's main code runs in its coroutine until it waits (sleep, select: that platform
yields the coroutine back here with the wake-up it needs, a time or sockets). Its events
threads are run by the kernel itself (platform.scheduler, used by splaylab.events): a thread
made ready, or whose deadline comes, is an event of the queue, and a socket that becomes
readable makes its waiting thread ready; the node's coroutine, in its events loop, only waits
for a leave request or the loop's end. One resume per wake-up, no loop round in between.
The queue is ordered by (virtual time, sequence number): ties keep the order events were
posted, so a run depends on nothing but its inputs. A socket that becomes readable wakes its
owner at the current virtual time if the owner waits on it; sockets are always reported in
creation order. Virtual time does not pass while a node computes.

Usage (sim.lua):
  local kernel = require "splaylab.sim.kernel"
  local k = kernel.new{ start_node = function(node) ... end,   -- runs inside node.co
                        emit = function(k, t, level, text) end, grace = 2 }
  k:at(t, function() ... end)         -- a timed action (churn, the end of the run)
  k:start(position, session_spec)    -- a node joins now: returns the node
  k:leave(node, graceful)            -- churn: fail now, or ask to leave (killed after grace)
  k:run(until_t, on_tick)            -- process events up to until_t
Node API for start_node: node.platform (install into the node's world); its exit(code) ends
the node (from a thread: once the thread's turn is over).
]]
local vnet = require "splaylab.sim.vnet"
local agenda = require "splaylab.sim.agenda"
-- a thread's record's slots (events_core.REC): its node's state, wake-up token, deadline entry
local REC = require("splaylab.events_core").REC
local STATE, TOKEN, DEADLINE = REC.STATE, REC.TOKEN, REC.DEADLINE
-- the slot of a node's events state (events_core.ST) that names the node
local S_NODE = require("splaylab.events_core").ST.NODE

local M = { _NAME = "splaylab.sim.kernel", _VERSION = "0.1" }

local create, resume, yield, running, costatus =
  coroutine.create, coroutine.resume, coroutine.yield, coroutine.running, coroutine.status
local sort, error, ipairs, pairs, setmetatable, tostring =
  table.sort, error, ipairs, pairs, setmetatable, tostring


local WAIT, EXIT = {}, {}   -- what a node's coroutine yields: it waits, or it has ended

local Kernel = {}
Kernel.__index = Kernel
agenda.install(Kernel)   -- the event queue: _post, _deadline, _timer, _untimer, _advance, _pop

--- A timed action: fn() runs at virtual time t (after what is already queued for t).
function Kernel:at(t, fn) self:_post(t, fn) end

-- nodes ----------------------------------------------------------------------------------
local function by_id(a, b) return a.id < b.id end

-- The sockets of a list that are ready, in creation order (LuaSocket's result shape: an array
-- that also has each socket as a key).
local function ready_of(list, method)
  local out = {}
  for _, s in ipairs(list or {}) do
    if s[method](s) then out[#out + 1] = s end
  end
  if out[2] then sort(out, by_id) end
  for _, s in ipairs(out) do out[s] = true end
  return out
end

local function wake(kernel, node)
  if node.waiting and node.state == "running" then
    node.waiting = false
    kernel:_post(kernel.now, nil, node, node.token)
  end
end

-- A socket became readable: the thread of its owner that waits on it is ready (its events
-- module says which); the owner's own coroutine wakes if it waits on it in a select.
local function on_ready(kernel, owner, sock)
  local socket_ready = owner.socket_ready
  if socket_ready then socket_ready(owner.events_state, sock) end
  local set = owner.wait_set
  if set and set[sock] then wake(kernel, owner) end
end

local function leave_signal()
  local sig = { id = 0, requests = 0 }
  function sig.readable(self) return self.requests > 0 end
  function sig.received(self)
    local n = self.requests
    self.requests = 0
    return n
  end
  return sig
end

-- What every node's platform and scheduler share, one set per kernel (what a call touches of
-- a node is then its state, not closures of its own: events_core's header). A thread's node is
-- its events state's (rec[STATE][S_NODE], set by sched.attach).
local function shared_platform(kernel)
  local f = {}
  function f.now() return kernel.now end
  function f.ready(rec)
    local node = rec[STATE][S_NODE]
    kernel:_post(kernel.now, node.run_ready, node, rec)
  end
  -- the thread's one deadline entry, queued again (Kernel:_timer)
  function f.deadline(rec, t)
    if t < kernel.now then t = kernel.now end
    local seq = kernel.seq + 1
    kernel.seq = seq
    local e = rec[DEADLINE]
    if not e then
      local node = rec[STATE][S_NODE]
      e = { t, seq, false, node.run_deadline, node, rec, 0 }
      rec[DEADLINE] = e
    end
    e[7] = rec[TOKEN]
    kernel:_timer(e, t, seq)
  end
  function f.cancel(rec)
    local e = rec[DEADLINE]
    if e then kernel:_untimer(e) end
  end
  return f
end

-- The functions of splaylab.platform for one node, on virtual time and the virtual network.
local function node_platform(kernel, node)
  local shared = kernel.shared
  local net = kernel.net
  local function blocking(what)
    if running() ~= node.co then
      error(what .. " would block outside the node's events loop (simulation: only the node's "
        .. "main code and its events threads may wait)", 3)
    end
  end
  -- Suspend the node until `at` (nil: no deadline) or a socket of wait_set becomes ready.
  local function suspend(at, wait_set)
    node.token = node.token + 1
    if at then
      if at <= kernel.now then at = kernel.now + 1e-9 end   -- always a step forward in time
      kernel:_deadline(node, at)
    end
    node.wait_set, node.waiting = wait_set, true
    yield(WAIT)
    node.wait_set, node.waiting = nil, false
  end
  local p = {}
  p.now = shared.now
  function p.sleep(t)
    if not t or t <= 0 then return end
    blocking("sleep")
    suspend(kernel.now + t, nil)
  end
  function p.select(recvt, sendt, timeout)
    if timeout and timeout < 0 then timeout = 0 end
    local r, w = ready_of(recvt, "readable"), ready_of(sendt, "writable")
    if r[1] or w[1] or timeout == 0 then return r, w end
    blocking("select")
    local set = {}
    for _, s in ipairs(recvt or {}) do set[s] = true end
    for _, s in ipairs(sendt or {}) do set[s] = true end
    suspend(timeout and kernel.now + timeout, set)
    return ready_of(recvt, "readable"), ready_of(sendt, "writable")
  end
  -- The events loop's scheduler (splaylab.events): its threads are events of the kernel.
  local sched = {}
  -- the node's events state and splaylab.events_sim's functions (shared by every node)
  function sched.attach(state, sim)
    state[S_NODE] = node
    node.events_state, node.use_events = state, sim.use
    node.run_ready, node.run_deadline, node.socket_ready = sim.run_ready, sim.run_deadline, sim.socket_ready
  end
  sched.ready, sched.deadline, sched.cancel = shared.ready, shared.deadline, shared.cancel
  -- the loop waits for a leave request (leave_signal) or unpark (no thread left to run)
  function sched.park(signal)
    blocking("events.run")
    node.parked = true
    suspend(nil, signal and { [signal] = true } or {})
    node.parked = false
  end
  function sched.unpark()
    if node.parked then wake(kernel, node) end
  end
  p.scheduler = sched
  function p.tcp() return net:tcp(node, node.ip) end
  function p.udp() return net:udp(node, node.ip) end
  function p.toip(host)
    if host == "*" or host:match("^%d+%.%d+%.%d+%.%d+$") then return host end
    if host == "localhost" then return "127.0.0.1" end
    return nil, "host not found"
  end
  local sig = leave_signal()
  node.leave = sig
  function p.catch_leave() return true end
  function p.leave_signal() return sig end
  function p.exit(code)
    node.exit_code = node.exit_code or code or 0
    -- From the node's own coroutine: end here. Elsewhere (an events thread): the node ends
    -- when the kernel gets control back (Kernel:_run_in).
    if running() == node.co then yield(EXIT) end
    node.exit_now = true
  end
  return p
end

-- Resume a node; account for its end.
function Kernel:_resume(node)
  self.current = node
  local use = node.use_events   -- its code calls its own events module (events_core's header)
  if use then use(node.events_state) end
  if self.before_resume then self.before_resume(node) end
  local ok, what = resume(node.co)
  self.current = nil
  if self.after_resume then self.after_resume(node) end
  if not ok then
    self.emit(node.k, self.now, "error", "splaylab simulator internal error: " .. tostring(what))
    return self:_end(node, 3)
  end
  if what == EXIT or node.exit_now or costatus(node.co) == "dead" then return self:_end(node, node.exit_code or 0) end
  if what ~= WAIT then   -- the app's own coroutine.yield, outside any coroutine of its own
    self.emit(node.k, self.now, "error", "app.lua: attempt to yield from outside a coroutine")
    return self:_end(node, 1)
  end
end

-- A thread of the node runs (fn: its events module's run_ready or run_deadline).
function Kernel:_run_in(node, fn, rec, token)
  self.current = node
  if self.before_resume then self.before_resume(node) end
  fn(rec, token)
  self.current = nil
  if self.after_resume then self.after_resume(node) end
  if node.exit_now then return self:_end(node, node.exit_code or 0) end
end

-- The node is gone (ended, failed, left): its sockets close, its wake-ups are void, and the
-- exit record says why, in the words of the live runner (sandbox/run_local.py).
function Kernel:_end(node, code, reason)
  if node.state ~= "running" then return end
  node.state = "ended"
  node.token = node.token + 1
  node.waiting = false
  self.net:close_owner(node)
  if self.up[node.k] == node then self.up[node.k] = nil end
  if node.on_end then node.on_end() end   -- sim.lua: the node's trace rows still buffered
  local failed = false
  if reason == nil and node.left == "graceful" then   -- else: given by the caller (churn, the end)
    reason = code == 0 and "left (churn: graceful)" or ("left (churn: graceful; ended with exit code " .. code .. ")")
    failed = code ~= 0
  elseif reason == nil then
    reason = code == 0 and "ended normally" or ("ended with exit code " .. code)
    failed = code ~= 0
  end
  self.emit(node.k, self.now, "exit", code .. "\t" .. reason)
  if failed then self.failed = true end
end

--- Node k joins now. spec: what start_node needs; returns the node.
function Kernel:start(k, spec)
  local node = { k = k, spec = spec, ip = spec.ip, state = "running", token = 0, waiting = false }
  node.platform = node_platform(self, node)
  node.co = create(function() self.start_node(node) end)
  self.up[k] = node
  self.started = self.started + 1
  self:_post(self.now, nil, node, node.token)
  return node
end

--- Churn: node fails now (graceful = false), or is asked to leave and killed `grace` s later.
function Kernel:leave(node, graceful)
  if node.state ~= "running" then return end
  if not graceful then
    node.left = "failure"
    return self:_end(node, 0, "left (churn: failure)")
  end
  node.left = "graceful"
  node.leave.requests = node.leave.requests + 1
  if node.wait_set and node.wait_set[node.leave] then wake(self, node) end
  self:at(self.now + self.grace, function()
    if node.state == "running" then
      self:_end(node, -9, ("left (churn: graceful; killed after the %g s grace period)"):format(self.grace))
    end
  end)
end

--- The end of the run: every node still up stops (`reason` for those that did not leave).
function Kernel:stop_all(reason)
  for _, node in ipairs(self:running_nodes()) do
    if node.left == "graceful" then
      self:_end(node, -9, "left (churn: graceful; still leaving when the run ended)")
    else
      self:_end(node, 0, reason)
    end
  end
end

--- The running nodes, by position.
function Kernel:running_nodes()
  local list = {}
  for _, node in pairs(self.up) do list[#list + 1] = node end
  sort(list, function(a, b) return a.k < b.k end)
  return list
end

--- Process events until virtual time `until_t` (or the queue is empty). on_tick(kernel), if
--- given, is called every `tick_every` events (progress, outside any node).
function Kernel:_dispatch(fn, node, token, arg)
  if node then
    if node.state == "running" then   -- else the node is gone: so are its wake-ups
      if fn then self:_run_in(node, fn, token, arg)   -- a thread (token: its record)
      elseif node.token == token then
        node.waiting = false
        self:_resume(node)
      end
    end
  else
    fn(arg)   -- a timed action, with what it was posted with (false: nothing)
  end
end

function Kernel:run(until_t, on_tick, tick_every)
  tick_every = tick_every or 4096
  local queue = self.heap
  local fseq, ffn, fnode, ftoken, farg = self.fifo_seq, self.fifo_fn, self.fifo_node, self.fifo_token, self.fifo_arg
  while true do
    local top, head = queue[1], self.fifo_head
    if self.far_n > 0 and head > self.fifo_tail and (not top or top[1] >= self.horizon) then
      self:_advance(top and top[1])
      top = queue[1]
    end
    local ft = self.fifo_t
    if head <= self.fifo_tail and ft <= until_t
      and (not top or top[1] > ft or (top[1] == ft and top[2] > fseq[head])) then
      local fn, node, token, arg = ffn[head], fnode[head], ftoken[head], farg[head]
      ffn[head], fnode[head], ftoken[head], farg[head] = nil, nil, nil, nil
      if head == self.fifo_tail then self.fifo_head, self.fifo_tail, self.fifo_t = 1, 0, false
      else self.fifo_head = head + 1 end
      self.now = ft
      self.events = self.events + 1
      self:_dispatch(fn or nil, node or nil, token or nil, arg or nil)
    elseif top and top[1] <= until_t then
      local e = self:_pop()
      self.now = e[1]
      self.events = self.events + 1
      self:_dispatch(e[4], e[5], e[6], e[7])
      self:_spent(e)
    else
      break
    end
    if on_tick and self.events % tick_every == 0 then on_tick(self) end
  end
  if until_t > self.now then self.now = until_t end
end

function M.new(opts)
  local kernel = setmetatable({ now = 0, events = 0, started = 0, up = {},
    start_node = opts.start_node, emit = opts.emit, grace = opts.grace or 2,
    before_resume = opts.before_resume, after_resume = opts.after_resume, failed = false }, Kernel)
  agenda.fields(kernel)
  kernel.shared = shared_platform(kernel)
  kernel.net = vnet.new(function(owner, sock) on_ready(kernel, owner, sock) end,
    function(t, fn, arg) kernel:_post(t, fn, nil, nil, arg) end)   -- messages in flight (splaylab.rpc_fast)
  return kernel
end

M.WAIT, M.EXIT = WAIT, EXIT
return M
