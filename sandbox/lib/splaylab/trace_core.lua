--[[
splaylab.trace_core - a node's message trace and the causal context of operations (docs/trace.md).

Runtime only: student code never reaches this module. A node's trace is an object
(splaylab.trace: `require "splaylab.trace"` is the node's), its methods one set for every node of
a simulation (splaylab.sim.world's PROCESS_WIDE); its state (the rows not written, the aggregates,
the threads' operations, the learned peers) is the object's.
  core.new(platform) -> trace                 a node's, over its platform (clock, toip)
splay.rpc, splay.urpc and the app's raw sockets report what they send and serve; the harness's
capability starts operations.

  trace:init{enabled, max_events, learn, write = function(json_line) end, flush_after, position,
    job_nodes, addresses, nb_ports}           once per node (node.lua, the simulator's world)
  trace:row(t, type, peer, name, out, in, outcome, op, depth, dur)   one event
  trace:peer(ip, port) -> position | "ip:port"
  trace:context() -> {op = "POS:SESSION:SEQ", depth = d} | nil   the running thread's operation
  trace:adopt(co [, ctx])                     co runs for ctx (default: the running thread's)
  trace:leave(trace:enter(ctx))               the running thread serves a call for ctx meanwhile
  trace:operation(name, fn, ...) -> op, seconds, pcall(fn, ...)'s results
  trace:reserve(name) -> op        an id given before the operation runs: operation(op, fn, ...)
  trace:learn(value)                          a received message's content: the node addresses in it
                                              (with `learn` only: it walks every message)
  trace:served(op) -> true when this node served a call of that operation
  trace:flush(), trace:flush_due(timeout) -> timeout   (the events loop, before it blocks)

Causal context: a thread's operation lives in a weak table keyed by coroutine (unreachable
from student code). events.thread, coroutine.create/wrap of the app and the rpc server's
request threads adopt the context of the thread that made them; splay.rpc/urpc carry
{op, depth} in the request envelope. Attribution stops at raw sockets and at threads that
existed before the operation (a worker woken through events.fire keeps its own context).
Rows: docs/trace.md. Past max_events listed rows the node writes one `capped` row and then
aggregates (same type, peer, name, outcome, op add up), so every sum stays exact.
]]
-- peer's answers, peers' and names' JSON texts: remembered for the whole process (the
-- simulator's nodes share them), not per node
local memo = require "splaylab.memo"
local buffer = require "string.buffer"
local position_of, decimal, quoted = memo.position, memo.decimal, memo.json_string

local C = { _NAME = "splaylab.trace_core", _VERSION = "0.2" }
local Trace = {}
Trace.__index = Trace

local running, setmetatable, tostring, tonumber, type, pcall, select, unpack, rawget, ipairs =
  coroutine.running, setmetatable, tostring, tonumber, type, pcall, select, unpack, rawget, ipairs
local floor, sub = math.floor, string.sub
-- (named neither next nor pairs: no ITERN loop, which this LuaJIT may end early; benc_copy.lua)
local nxt = (package.loaded["splaylab.safe_pairs"] or {}).next_builtin or next   -- see splaylab.safe_pairs

local MAX_LINE = 3900        -- below the 4,096-byte line cap of every runner and daemon
local MAX_NAME = 64
local HEAD = '{"rows":['
local NO_PEER = {}   -- the key of a nil peer
-- A row is formatted into `row_text` (one for the process: a row is copied out at once) and
-- copied into the node's line, with no Lua string per row (a quarter of what a Chord simulation
-- allocated was the trace's: docs/simulation.md).
local row_text = buffer.new()

--- A node's trace (off until init), over its platform.
function C.new(platform)
  return setmetatable({
    platform = platform,
    on = false,
    learning = false,       -- `learned` rows: on request (peer-sampling checks need them)
    flush_after = nil,      -- live: seconds a row may wait before it is written (nil: no bound)
    max_events = 20000, listed = 0,
    write = nil,
    -- the line being built, '{"rows":[' and the rows not written yet, comma-separated
    line = buffer.new(),
    nbuf = 0, oldest = nil,  -- rows in the line, since when
    -- Past max_events: the aggregate rows, found by type, peer, name, outcome and op in nested
    -- tables (no key string built per event), and in `agg_rows` in the order they came
    agg = nil, agg_rows = nil, agg_dirty = false,
    ctx_of = setmetatable({}, { __mode = "k" }),   -- coroutine -> the operation it runs for
    ops_served = {},
    reserved = {},          -- op id -> name, given by reserve() and not run yet
    position = 0, session = 0, seq = 0,
    index = nil, index_source = nil,
    learned = {},
  }, Trace)
end

function Trace:init(opts)
  self.on = opts.enabled and true or false
  self.learning = self.on and opts.learn and true or false
  self.max_events = tonumber(opts.max_events) or 20000
  self.write = opts.write
  self.flush_after = tonumber(opts.flush_after)
  self.listed = 0
  self.line:free(); self.nbuf, self.oldest = 0, nil
  self.agg, self.agg_rows, self.agg_dirty = nil, nil, false
  self.ops_served = {}
  -- an operation's id names the node's session (its start, in ms of its clock) so that a node
  -- that rejoins at the same position never reuses an id
  self.position, self.session, self.seq = tonumber(opts.position) or 0, floor(self.platform.now() * 1000), 0
  self.index, self.index_source = nil, opts
end

function Trace:enabled() return self.on end

-- "ip:port" -> the job's position (built on first use: live, from the job's node list; in the
-- simulator, its shared read-only index of every address)
local function address_index(self)
  local src = self.index_source or {}
  if src.addresses then self.index = src.addresses; return src.addresses end
  local index = {}
  local ports = tonumber(src.nb_ports) or 1
  local toip = self.platform.toip
  for k, n in ipairs(src.job_nodes or {}) do
    local ip, port = n.ip and toip(tostring(n.ip)), tonumber(n.port)
    if ip and port then
      for p = 0, ports - 1 do
        local key = ip .. ":" .. (port + p)
        if index[key] == nil then index[key] = k end
      end
    end
  end
  self.index = index
  return index
end

function Trace:peer(ip, port)
  if ip == nil then return 0 end
  return position_of(self.index or address_index(self), ip, port)
end

-- Rows are formatted as JSON text when they happen (a string buffer's putf: several times cheaper
-- than a table per row encoded later) and written as lines of at most MAX_LINE bytes.
local ROW = '[%.6f,"%s",%s,%s,%d,%d,"%s","%s",%d,%.6f,%d]'

-- A JSON string for text the app may have chosen (a function's name, a host it gave), and a
-- peer's JSON (memo: a node calls few names and few peers, many times).
local function peer_json(peer)
  if type(peer) == "number" then return decimal(peer) end
  return quoted(tostring(peer))
end

local push   -- (below) one row into the line

function Trace:flush()
  if self.nbuf > 0 then
    local line = self.line
    local text = line:put("]}"):tostring()
    line:free()   -- no line's room kept between lines (memory per simulated node)
    self.nbuf, self.oldest = 0, nil
    local write = self.write
    if write then write(text) end
  end
  if self.agg_dirty then
    self.agg_dirty = false
    for _, r in ipairs(self.agg_rows) do
      if r[11] > 0 then
        push(self, r[1], r[2], peer_json(r[3]), quoted(r[4]), r[5], r[6], r[7], r[8], r[9], r[10], r[11])
        r[5], r[6], r[10], r[11] = 0, 0, 0, 0   -- (the deepest call stays the row's)
      end
    end
    if self.nbuf > 0 then self:flush() end
  end
end

-- one row (ROW's values) into the line; a full line goes out first
function push(self, ...)
  row_text:reset():putf(ROW, ...)
  -- the line's rows with a comma each, this row, and the line's ends within MAX_LINE
  local line = self.line
  if self.nbuf > 0 and #line - #HEAD + 1 + #row_text + 16 > MAX_LINE then self:flush() end
  local nbuf = self.nbuf
  line:put(nbuf == 0 and HEAD or ",", row_text)
  self.nbuf = nbuf + 1
  if not self.oldest then self.oldest = self.platform.now() end
end

-- The events loop asks before it blocks: rows older than flush_after go out now, and the wait
-- is cut so that a row never waits much longer than that (a killed node loses at most ~1 s).
function Trace:flush_due(timeout)
  local flush_after = self.flush_after
  if (self.nbuf == 0 and not self.agg_dirty) or not flush_after then return timeout end
  local now = self.platform.now()
  local due = (self.oldest or now) + flush_after
  if now >= due then
    self:flush()
    return timeout
  end
  if timeout == nil or timeout > due - now then return due - now end
  return timeout
end

-- the table under `key` in t, made when missing
local function sub_table(t, key)
  local s = t[key]
  if not s then s = {}; t[key] = s end
  return s
end

local function aggregate(self, t, typ, peer, name, out, inb, outcome, op, depth, dur)
  local by_outcome = sub_table(sub_table(sub_table(self.agg, typ), peer == nil and NO_PEER or peer), name)
  local by_op = sub_table(by_outcome, outcome)
  local r = by_op[op]
  if not r then
    r = { t, typ, peer, name, 0, 0, outcome, op, depth, 0, 0 }
    by_op[op] = r
    local agg_rows = self.agg_rows
    agg_rows[#agg_rows + 1] = r
  end
  if r[11] == 0 then r[1] = t end
  if depth > r[9] then r[9] = depth end
  r[5], r[6], r[10], r[11] = r[5] + out, r[6] + inb, r[10] + dur, r[11] + 1
  if not self.agg_dirty then self.agg_dirty = true; self.oldest = self.oldest or self.platform.now() end
end

function Trace:row(t, typ, peer, name, out, inb, outcome, op, depth, dur)
  if not self.on then return end
  if type(name) ~= "string" then name = name ~= nil and tostring(name) or "" end
  if #name > MAX_NAME then name = sub(name, 1, MAX_NAME) end
  out, inb, op, depth, dur = out or 0, inb or 0, op or "", depth or 0, dur or 0
  local listed = self.listed
  if listed >= self.max_events then
    if not self.agg then
      self.agg, self.agg_rows = {}, {}
      push(self, t, "capped", "0", '""', 0, 0, "ok", "", 0, 0, self.max_events)
    end
    return aggregate(self, t, typ, peer, name, out, inb, outcome, op, depth, dur)
  end
  self.listed = listed + 1
  push(self, t, typ, peer_json(peer), quoted(name), out, inb, outcome, op, depth, dur, 1)
end

-- what messages taught ----------------------------------------------------------------------
-- A node's address ({ip, port} in a table: SPLAY's node descriptors) carried in a message this node
-- received (a request it served, a reply it got) is a peer it learned of: one `learned` row the
-- first time (docs/trace.md). Peer-sampling views are judged against it: an entry no message
-- brought was not learned by gossip. The walk is bounded (depth, tables), like the messages.
local LEARN_DEPTH, LEARN_TABLES = 4, 64

local budget = 0   -- tables the walk under way may still visit (a walk runs to its end at once)
local function walk(self, v, depth, t)
  if budget <= 0 then return end
  budget = budget - 1
  local ip, port = rawget(v, "ip"), rawget(v, "port")
  if ip ~= nil and port ~= nil and (type(ip) == "string") then
    local k = self:peer(ip, tonumber(port))
    local learned = self.learned
    if type(k) == "number" and k ~= self.position and not learned[k] then
      learned[k] = true
      self:row(t or self.platform.now(), "learned", k, "", 0, 0, "ok", "", 0, 0)
    end
  end
  if depth >= LEARN_DEPTH then return end
  for _, x in nxt, v do
    if type(x) == "table" then walk(self, x, depth + 1, t) end
  end
end

function Trace:learn(v)
  if self.learning and type(v) == "table" then
    budget = LEARN_TABLES
    walk(self, v, 1, nil)
  end
end

-- causal context ----------------------------------------------------------------------------
function Trace:context()
  local co = running()
  return co and self.ctx_of[co]
end

function Trace:adopt(co, ctx)
  local ctx_of = self.ctx_of
  if ctx == nil then
    local me = running()
    ctx = me and ctx_of[me]
  end
  if co and ctx then ctx_of[co] = ctx end
  return co
end

-- A served call: the serving thread runs for its operation (ctx, or none) until
-- leave(enter(ctx)) puts back what it ran for before.
function Trace:enter(ctx)
  local co = running()
  if not co then return nil end
  local ctx_of = self.ctx_of
  local saved = ctx_of[co]
  if ctx == saved then return saved end
  ctx_of[co] = ctx
  if ctx then self.ops_served[ctx.op] = true end
  return saved
end

function Trace:leave(saved)
  local co = running()
  if co then self.ctx_of[co] = saved end
end

-- {op, depth, f} as it travels in an envelope -> a context (f: the caller's position, 0 when
-- unknown), or nil when malformed
function Trace.decode(_, wire)
  if type(wire) ~= "table" then return nil end
  local op, depth, f = wire.op, tonumber(wire.depth), tonumber(wire.f)
  if type(op) ~= "string" or #op > 40 or not depth or depth < 0 or depth > 1e6 then return nil end
  return { op = op, depth = floor(depth), f = f and f == f and f >= 0 and floor(f) or 0 }
end

function Trace:served(op) return self.ops_served[op] == true end

local function pack(...) return { n = select("#", ...), ... } end

-- An operation's id before it runs (a broadcast names its message after it): operation(id, ...)
-- then runs it under that id, once.
function Trace:reserve(name)
  local seq = self.seq + 1
  self.seq = seq
  local id = self.position .. ":" .. self.session .. ":" .. seq
  self.reserved[id] = tostring(name)
  return id
end

function Trace:operation(name, fn, ...)
  local co = running()
  if not co then error("an operation runs inside a thread (events.thread)", 2) end
  local id
  local reserved = self.reserved
  if reserved[name] then
    id, name = name, reserved[name]
    reserved[id] = nil
  else
    local seq = self.seq + 1
    self.seq = seq
    id = self.position .. ":" .. self.session .. ":" .. seq
  end
  local ctx_of = self.ctx_of
  local saved = ctx_of[co]
  ctx_of[co] = { op = id, depth = 0 }
  local now = self.platform.now
  local t0 = now()
  local res = pack(pcall(fn, ...))
  local took = now() - t0
  ctx_of[co] = saved
  self:row(t0, "op", 0, name, 0, 0, res[1] and "ok" or "error", id, 0, took)
  return id, took, unpack(res, 1, res.n)
end

return C
