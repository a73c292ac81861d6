--[[
splaylab.sim.kernel - the discrete-event core of the simulator: a virtual clock, one event queue,
and every node of a job as a coroutine with a platform of its own (splaylab.platform's
functions on virtual time and sim.vnet sockets).

A node runs until it waits: its events loop asks its platform to sleep or to select; that
platform yields the node's coroutine back here with the wake-up it needs (a time, sockets).
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
Node API for start_node: node.platform (install into the node's world), node.exit(code) ends it.
]]
local vnet = require "splaylab.sim.vnet"
local heap = require "splaylab.heap"

local M = { _NAME = "splaylab.sim.kernel", _VERSION = "0.1" }

local create, resume, yield, running, costatus =
  coroutine.create, coroutine.resume, coroutine.yield, coroutine.running, coroutine.status
local sort, error, ipairs, pairs, setmetatable, tostring =
  table.sort, error, ipairs, pairs, setmetatable, tostring

local nxt = (package.loaded["splaylab.safe_pairs"] or {}).next_builtin or next   -- see splaylab.safe_pairs

local WAIT, EXIT = {}, {}   -- what a node's coroutine yields: it waits, or it has ended

local Kernel = {}
Kernel.__index = Kernel

-- event queue: a splaylab.heap of {t, seq, pos, fn, node, token} ----------------------------
function Kernel:_push(e) heap.push(self.heap, e) end
function Kernel:_pop() return heap.pop(self.heap) end

function Kernel:_post(t, fn, node, token)
  local seq = self.seq + 1
  self.seq = seq
  self:_push({ t, seq, false, fn, node, token })
end

-- A node's deadline: the entry its last deadline used moves to (t, the next sequence number)
-- when it is still queued (made stale by an earlier wake-up), instead of a new entry: the
-- stale one would be popped and dropped later (460 k of a 300-node Chord's 1.07 M events).
-- The live entries keep the order they would have had.
function Kernel:_deadline(node, t)
  local seq = self.seq + 1
  self.seq = seq
  local e = node.deadline
  if not e then
    e = { t, seq, false, nil, node, 0 }
    node.deadline = e
  end
  e[6] = node.token
  heap.move(self.heap, e, t, seq)
end

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

-- Does the node wait on that socket (in a select, or in its events loop's poll)?
local function waits_on(node, sock)
  if node.wait_set then return node.wait_set[sock] end
  local r = node.poll_r
  return r ~= nil and (r[sock] ~= nil or node.poll_w[sock] ~= nil or node.poll_x == sock)
end

-- A socket became readable: its owner wakes now if it waits on that socket. Either way the
-- socket is a candidate for the owner's next poll (see ready_among).
local function on_ready(kernel, owner, sock)
  local cand = owner.cand
  if cand and not sock.candidate then
    sock.candidate = true
    cand[#cand + 1] = sock
  end
  if waits_on(owner, sock) then wake(kernel, owner) end
end

-- A poll's answer in LuaSocket's shape: the ready sockets in creation order (the leave signal,
-- id 0, first), each also a key of the array; nil stays nil (none ready).
local function indexed(out)
  if out and out[2] then
    sort(out, by_id)
    for _, s in ipairs(out) do out[s] = true end
  elseif out then
    out[out[1]] = true
  end
  return out
end

-- The sockets among the keys of `set` that are ready, in creation order, after `first` (the
-- leave signal); nil when none is.
local function ready_in(set, method, first)
  local out = first and { first } or nil
  for s in nxt, set do
    if s[method](s) then
      if out then out[#out + 1] = s else out = { s } end
    end
  end
  return indexed(out)
end

-- The same answer as ready_in(readers, "readable", first) without walking every socket the
-- node waits on (a Chord node waits on each pooled connection: the walk was 5 % of a run).
-- After a poll, no socket of `readers` is readable (each one reported wakes its thread, which
-- stops waiting on it), so only two kinds can be ready at the next: those made readable since
-- (vnet's on_ready, also called when a node closes its own socket) and those a thread began
-- waiting on since (events.wait_socket -> platform.watch). `cand` holds both (an array, each
-- socket once: its `candidate` flag); a candidate that is not ready is dropped, one that is
-- reported is kept for the next poll to look at again.
-- A node's first poll walks all its readers; before it, nothing is kept (a node that never
-- polls, its app without events threads, keeps no closed sockets alive).
local function ready_among(cand, readers, first)
  local out = first and { first } or nil
  local kept = 0
  for i = 1, #cand do   -- an array, not pairs: next() is not compiled by this LuaJIT
    local s = cand[i]
    cand[i] = nil
    if readers[s] ~= nil and s:readable() then
      if out then out[#out + 1] = s else out = { s } end
      kept = kept + 1
      cand[kept] = s
    else
      s.candidate = nil
    end
  end
  return indexed(out)
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

-- The functions of splaylab.platform for one node, on virtual time and the virtual network.
local function node_platform(kernel, node)
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
  function p.now() return kernel.now end
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
  -- The events loop's wait on its own reader and writer sets (keyed by socket), without the
  -- arrays LuaSocket's select takes: nil for "none ready" (the loop's common case).
  function p.poll(readers, writers, extra, timeout)
    if timeout and timeout < 0 then timeout = 0 end
    local x = extra and extra:readable() and extra or nil
    local cand, r = node.cand
    if cand then r = ready_among(cand, readers, x)
    else   -- the first poll walks them all; from then on the node's sockets are candidates
      r, cand = ready_in(readers, "readable", x), {}
      for _, s in ipairs(r or {}) do
        if s ~= x then cand[#cand + 1] = s; s.candidate = true end
      end
      node.cand = cand
    end
    local w = ready_in(writers, "writable")
    if r or w or timeout == 0 then return r, w end
    blocking("select")
    node.poll_r, node.poll_w, node.poll_x = readers, writers, extra
    suspend(timeout and kernel.now + timeout, nil)
    node.poll_r, node.poll_w, node.poll_x = nil, nil, nil
    x = extra and extra:readable() and extra or nil
    return ready_among(cand, readers, x), ready_in(writers, "writable")
  end
  -- events.wait_socket: a thread begins to wait on `sock` (a candidate for the next poll).
  function p.watch(sock)
    local cand = node.cand
    if cand and not sock.candidate then
      sock.candidate = true
      cand[#cand + 1] = sock
    end
  end
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
    -- From the node's own loop: end here. From an events thread: return, the events loop
    -- unwinds (events.exit) and the node's main function returns.
    if running() == node.co then yield(EXIT) end
  end
  return p
end

-- Resume a node; account for its end.
function Kernel:_resume(node)
  self.current = node
  if self.before_resume then self.before_resume(node) end
  local ok, what = resume(node.co)
  self.current = nil
  if self.after_resume then self.after_resume(node) end
  if not ok then
    self.emit(node.k, self.now, "error", "splaylab simulator internal error: " .. tostring(what))
    return self:_end(node, 3)
  end
  if what == EXIT or costatus(node.co) == "dead" then return self:_end(node, node.exit_code or 0) end
  if what ~= WAIT then   -- the app's own coroutine.yield, outside any coroutine of its own
    self.emit(node.k, self.now, "error", "app.lua: attempt to yield from outside a coroutine")
    return self:_end(node, 1)
  end
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
  if waits_on(node, node.leave) then wake(self, node) end
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
function Kernel:run(until_t, on_tick, tick_every)
  tick_every = tick_every or 4096
  local queue = self.heap
  while queue[1] and queue[1][1] <= until_t do
    local e = self:_pop()
    self.now = e[1]
    self.events = self.events + 1
    local node = e[5]
    if node then
      if node.state == "running" and node.token == e[6] then
        node.waiting = false
        self:_resume(node)
      end
    else
      e[4]()
    end
    if on_tick and self.events % tick_every == 0 then on_tick(self) end
  end
  if until_t > self.now then self.now = until_t end
end

function M.new(opts)
  local kernel = setmetatable({ heap = {}, seq = 0, now = 0, events = 0, started = 0, up = {},
    start_node = opts.start_node, emit = opts.emit, grace = opts.grace or 2,
    before_resume = opts.before_resume, after_resume = opts.after_resume, failed = false }, Kernel)
  kernel.net = vnet.new(function(owner, sock) on_ready(kernel, owner, sock) end,
    function(t, fn) kernel:_post(t, fn) end)   -- messages in flight (splaylab.rpc_fast)
  return kernel
end

M.WAIT, M.EXIT = WAIT, EXIT
return M
