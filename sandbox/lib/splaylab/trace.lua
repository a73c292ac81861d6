--[[
splaylab.trace - the node's message trace and the causal context of operations (docs/trace.md).

Runtime only: student code never reaches this module. splay.rpc, splay.urpc and the app's raw
sockets report what they send and serve; the harness's capability starts operations.

  trace.init{enabled, max_events, learn, write = function(json_line) end, flush_after, position,
    job_nodes, addresses, nb_ports}           once per node (node.lua, the simulator's world)
  trace.row(t, type, peer, name, out, in, outcome, op, depth, dur)   one event
  trace.peer(ip, port) -> position | "ip:port"
  trace.context() -> {op = "POS:SESSION:SEQ", depth = d} | nil   the running thread's operation
  trace.adopt(co [, ctx])                     co runs for ctx (default: the running thread's)
  trace.leave(trace.enter(ctx))               the running thread serves a call for ctx meanwhile
  trace.operation(name, fn, ...) -> op, seconds, pcall(fn, ...)'s results
  trace.reserve(name) -> op        an id given before the operation runs: operation(op, fn, ...)
  trace.learn(value)                          a received message's content: the node addresses in it
                                              (with `learn` only: it walks every message)
  trace.served(op) -> true when this node served a call of that operation
  trace.flush(), trace.flush_due(timeout) -> timeout   (the events loop, before it blocks)

Causal context: a thread's operation lives in a weak table keyed by coroutine (unreachable
from student code). events.thread, coroutine.create/wrap of the app and the rpc server's
request threads adopt the context of the thread that made them; splay.rpc/urpc carry
{op, depth} in the request envelope. Attribution stops at raw sockets and at threads that
existed before the operation (a worker woken through events.fire keeps its own context).
Rows: docs/trace.md. Past max_events listed rows the node writes one `capped` row and then
aggregates (same type, peer, name, outcome, op add up), so every sum stays exact.
]]
local platform = require "splaylab.platform"
-- M.peer's answers, peers' and names' JSON texts: remembered for the whole process (the
-- simulator's nodes share them), not per node
local memo = require "splaylab.memo"
local buffer = require "string.buffer"
local position_of, decimal, quoted = memo.position, memo.decimal, memo.json_string

local M = { _NAME = "splaylab.trace", _VERSION = "0.1" }

local running, setmetatable, tostring, tonumber, type, pcall, select, unpack, rawget, next =
  coroutine.running, setmetatable, tostring, tonumber, type, pcall, select, unpack, rawget, next
local floor, sub = math.floor, string.sub
-- (named neither next nor pairs: no ITERN loop, which this LuaJIT may end early; benc_copy.lua)
local nxt = (package.loaded["splaylab.safe_pairs"] or {}).next_builtin or next   -- see splaylab.safe_pairs

local MAX_LINE = 3900        -- below the 4,096-byte line cap of every runner and daemon
local MAX_NAME = 64

local enabled = false
local learning = false       -- `learned` rows: on request (peer-sampling checks need them)
local flush_after = nil      -- live: seconds a row may wait before it is written (nil: no bound)
local max_events, listed = 20000, 0
local write = nil
-- The line being built, '{"rows":[' and the rows not written yet, comma-separated, in a string
-- buffer: a row is formatted into `row_text` and copied into the line, with no Lua string per
-- row (a quarter of what a Chord simulation allocated was the trace's: docs/simulation.md).
local line, row_text = buffer.new(), buffer.new()
local HEAD = '{"rows":['
local nbuf, oldest = 0, nil  -- rows in the line, since when
-- Past max_events: the aggregate rows, found by type, peer, name, outcome and op in nested
-- tables (no key string built per event), and in `agg_rows` in the order they came
local agg, agg_rows, agg_dirty = nil, nil, false
local NO_PEER = {}   -- the key of a nil peer
local ctx_of = setmetatable({}, { __mode = "k" })
local ops_served = {}
local reserved = {}          -- op id -> name, given by reserve() and not run yet
local position, session, seq = 0, 0, 0
local index, index_source = nil, nil

function M.init(opts)
  enabled = opts.enabled and true or false
  learning = enabled and opts.learn and true or false
  max_events = tonumber(opts.max_events) or 20000
  write = opts.write
  flush_after = tonumber(opts.flush_after)
  listed = 0
  line:free(); nbuf, oldest = 0, nil
  agg, agg_rows, agg_dirty = nil, nil, false
  ops_served = {}
  -- an operation's id names the node's session (its start, in ms of its clock) so that a node
  -- that rejoins at the same position never reuses an id
  position, session, seq = tonumber(opts.position) or 0, floor(platform.now() * 1000), 0
  index, index_source = nil, opts
end

function M.enabled() return enabled end

-- "ip:port" -> the job's position (built on first use: live, from the job's node list; in the
-- simulator, its shared read-only index of every address)
local function address_index()
  local src = index_source or {}
  if src.addresses then index = src.addresses; return index end
  index = {}
  local ports = tonumber(src.nb_ports) or 1
  for k, n in ipairs(src.job_nodes or {}) do
    local ip, port = n.ip and platform.toip(tostring(n.ip)), tonumber(n.port)
    if ip and port then
      for p = 0, ports - 1 do
        local key = ip .. ":" .. (port + p)
        if index[key] == nil then index[key] = k end
      end
    end
  end
  return index
end

function M.peer(ip, port)
  if ip == nil then return 0 end
  return position_of(index or address_index(), ip, port)
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

function M.flush()
  if nbuf > 0 then
    local text = line:put("]}"):tostring()
    line:free()   -- no line's room kept between lines (memory per simulated node)
    nbuf, oldest = 0, nil
    if write then write(text) end
  end
  if agg_dirty then
    agg_dirty = false
    for _, r in ipairs(agg_rows) do
      if r[11] > 0 then
        push(r[1], r[2], peer_json(r[3]), quoted(r[4]), r[5], r[6], r[7], r[8], r[9], r[10], r[11])
        r[5], r[6], r[10], r[11] = 0, 0, 0, 0   -- (the deepest call stays the row's)
      end
    end
    if nbuf > 0 then M.flush() end
  end
end

-- one row (ROW's values) into the line; a full line goes out first
function push(...)
  row_text:reset():putf(ROW, ...)
  -- the line's rows with a comma each, this row, and the line's ends within MAX_LINE
  if nbuf > 0 and #line - #HEAD + 1 + #row_text + 16 > MAX_LINE then M.flush() end
  line:put(nbuf == 0 and HEAD or ",", row_text)
  nbuf = nbuf + 1
  if not oldest then oldest = platform.now() end
end

-- The events loop asks before it blocks: rows older than flush_after go out now, and the wait
-- is cut so that a row never waits much longer than that (a killed node loses at most ~1 s).
function M.flush_due(timeout)
  if (nbuf == 0 and not agg_dirty) or not flush_after then return timeout end
  local now = platform.now()
  local due = (oldest or now) + flush_after
  if now >= due then
    M.flush()
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

local function aggregate(t, typ, peer, name, out, inb, outcome, op, depth, dur)
  local by_outcome = sub_table(sub_table(sub_table(agg, typ), peer == nil and NO_PEER or peer), name)
  local by_op = sub_table(by_outcome, outcome)
  local r = by_op[op]
  if not r then
    r = { t, typ, peer, name, 0, 0, outcome, op, depth, 0, 0 }
    by_op[op] = r
    agg_rows[#agg_rows + 1] = r
  end
  if r[11] == 0 then r[1] = t end
  if depth > r[9] then r[9] = depth end
  r[5], r[6], r[10], r[11] = r[5] + out, r[6] + inb, r[10] + dur, r[11] + 1
  if not agg_dirty then agg_dirty = true; oldest = oldest or platform.now() end
end

function M.row(t, typ, peer, name, out, inb, outcome, op, depth, dur)
  if not enabled then return end
  if type(name) ~= "string" then name = name ~= nil and tostring(name) or "" end
  if #name > MAX_NAME then name = sub(name, 1, MAX_NAME) end
  out, inb, op, depth, dur = out or 0, inb or 0, op or "", depth or 0, dur or 0
  if listed >= max_events then
    if not agg then
      agg, agg_rows = {}, {}
      push(t, "capped", "0", '""', 0, 0, "ok", "", 0, 0, max_events)
    end
    return aggregate(t, typ, peer, name, out, inb, outcome, op, depth, dur)
  end
  listed = listed + 1
  push(t, typ, peer_json(peer), quoted(name), out, inb, outcome, op, depth, dur, 1)
end

-- what messages taught ----------------------------------------------------------------------
-- A node's address ({ip, port} in a table: SPLAY's node descriptors) carried in a message this node
-- received (a request it served, a reply it got) is a peer it learned of: one `learned` row the
-- first time (docs/trace.md). Peer-sampling views are judged against it: an entry no message
-- brought was not learned by gossip. The walk is bounded (depth, tables), like the messages.
local LEARN_DEPTH, LEARN_TABLES = 4, 64

local learned = {}
local budget = 0
local function walk(v, depth, t)
  if budget <= 0 then return end
  budget = budget - 1
  local ip, port = rawget(v, "ip"), rawget(v, "port")
  if ip ~= nil and port ~= nil and (type(ip) == "string") then
    local k = M.peer(ip, tonumber(port))
    if type(k) == "number" and k ~= position and not learned[k] then
      learned[k] = true
      M.row(t or platform.now(), "learned", k, "", 0, 0, "ok", "", 0, 0)
    end
  end
  if depth >= LEARN_DEPTH then return end
  for _, x in nxt, v do
    if type(x) == "table" then walk(x, depth + 1, t) end
  end
end

function M.learn(v)
  if learning and type(v) == "table" then
    budget = LEARN_TABLES
    walk(v, 1, nil)
  end
end

-- causal context ----------------------------------------------------------------------------
function M.context()
  local co = running()
  return co and ctx_of[co]
end

function M.adopt(co, ctx)
  if ctx == nil then
    local me = running()
    ctx = me and ctx_of[me]
  end
  if co and ctx then ctx_of[co] = ctx end
  return co
end

-- A served call: the serving thread runs for its operation (ctx, or none) until
-- leave(enter(ctx)) puts back what it ran for before.
function M.enter(ctx)
  local co = running()
  if not co then return nil end
  local saved = ctx_of[co]
  if ctx == saved then return saved end
  ctx_of[co] = ctx
  if ctx then ops_served[ctx.op] = true end
  return saved
end

function M.leave(saved)
  local co = running()
  if co then ctx_of[co] = saved end
end

-- {op, depth, f} as it travels in an envelope -> a context (f: the caller's position, 0 when
-- unknown), or nil when malformed
function M.decode(wire)
  if type(wire) ~= "table" then return nil end
  local op, depth, f = wire.op, tonumber(wire.depth), tonumber(wire.f)
  if type(op) ~= "string" or #op > 40 or not depth or depth < 0 or depth > 1e6 then return nil end
  return { op = op, depth = floor(depth), f = f and f == f and f >= 0 and floor(f) or 0 }
end

function M.served(op) return ops_served[op] == true end

local function pack(...) return { n = select("#", ...), ... } end

-- An operation's id before it runs (a broadcast names its message after it): operation(id, ...)
-- then runs it under that id, once.
function M.reserve(name)
  seq = seq + 1
  local id = position .. ":" .. session .. ":" .. seq
  reserved[id] = tostring(name)
  return id
end

function M.operation(name, fn, ...)
  local co = running()
  if not co then error("an operation runs inside a thread (events.thread)", 2) end
  local id
  if reserved[name] then
    id, name = name, reserved[name]
    reserved[id] = nil
  else
    seq = seq + 1
    id = position .. ":" .. session .. ":" .. seq
  end
  local saved = ctx_of[co]
  ctx_of[co] = { op = id, depth = 0 }
  local t0 = platform.now()
  local res = pack(pcall(fn, ...))
  local took = platform.now() - t0
  ctx_of[co] = saved
  M.row(t0, "op", 0, name, 0, 0, res[1] and "ok" or "error", id, 0, took)
  return id, took, unpack(res, 1, res.n)
end

return M
