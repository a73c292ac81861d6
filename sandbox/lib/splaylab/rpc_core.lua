--[[
splaylab.rpc_core - splay.rpc's functions (splaylab.rpc's header says what they do), one set for
every node of a simulation (splaylab.sim.world's PROCESS_WIDE), as splaylab.events_core's. A node's
rpc state is a table in its events state (its RPC slot, made by splaylab.rpc): its module table M (the
app's splay.rpc: its settings, which the app may change), its socket, llenc, net, benc, trace,
logger and connection pool (splaylab.rpc_conn). Every function here runs in a node's code (a
call of its app, a request its server's thread serves), so it reads the state of the node whose
code runs (events_core.current_state()).
  core.api               the functions splaylab.rpc puts in its module table (server, acall,
                         dispatch, outcome_of, envelope, serve_traced, traced)
  core.client_api(mod)   the call forms built on mod.acall (rpc's and urpc's); core.PING
]]
local events_core = require "splaylab.events_core"
local fast = require "splaylab.rpc_fast"
local copy_fields = require("splaylab.benc_copy").copy_fields   -- the fast path's messages
-- "ip:port", the pool's key, remembered per address (a node calls few peers, many times)
local key_of = require("splaylab.memo").address_key

local C = { _NAME = "splaylab.rpc_core", _VERSION = "0.2" }
local api = {}
C.api = api

local type, tostring, tonumber, pcall, select, unpack, error, setmetatable, maxn =
  type, tostring, tonumber, pcall, select, unpack, error, setmetatable, table.maxn
local gmatch, find = string.gmatch, string.find
local current_state = events_core.current_state

-- the node whose code runs: its rpc state
local S_RPC = events_core.ST.RPC   -- its slot in a node's events state
local function here() return current_state()[S_RPC] end

-- pcall's status, then its other values in one table and their count
local function results(ok, ...) return ok, { ... }, select("#", ...) end
local PING = "\0ping"
C.PING = PING

-- (node, call, timeout) or (ip, port, call, timeout) -> ip, port, call, timeout
local function parse(a, b, c, d)
  if type(a) == "table" then return a.ip, tonumber(a.port), b, c end
  return a, tonumber(b), c, d
end

local function find_function(R, name)
  local v = R.M.settings.env
  if type(name) ~= "string" then return nil end
  if name ~= "" and not find(name, ".", 1, true) then   -- most calls: no iterator closure to make
    if type(v) ~= "table" then return nil, nil end
    v = v[name]
    if type(v) == "function" then return v end
    return nil, v
  end
  for part in gmatch(name, "[^%.]+") do
    if type(v) ~= "table" then return nil, nil end
    v = v[part]
  end
  if type(v) == "function" then return v end
  return nil, v
end

-- Run one decoded call {name, args...} (n values) against the app's globals -> reply table
-- {ok, r, n} or {ok = false, err}. Shared with splay.urpc (`proto` names the module in errors).
local function dispatch(call, n, proto)
  if call[1] == PING then return { ok = true, r = {}, n = 0 } end
  local R = here()
  local f, value = find_function(R, call[1])
  if not f then
    -- SPLAY returns the value of a global variable called without arguments (the paper's
    -- call(finger[1], 'predecessor') reads the variable `predecessor`, nil included)
    if n <= 1 then return { ok = true, r = { value }, n = 1 } end
    return { ok = false, err = proto .. ": no function '" .. tostring(call[1]) .. "' on this node" }
  end
  local ok, r, nr = results(pcall(f, unpack(call, 2, n)))
  if not ok then
    R.log:warn("call to '" .. tostring(call[1]) .. "' raised: " .. tostring(r[1]))
    return { ok = false, err = "remote error: " .. tostring(r[1]) }
  end
  for i = 1, nr do
    if r[i] == nil then   -- a hole: r as the loop r[i] = result i builds it (its pairs order is the wire's)
      local t = {}
      for j = 1, nr do t[j] = r[j] end
      return { ok = true, r = t, n = nr }
    end
  end
  return { ok = true, r = r, n = nr }
end
api.dispatch = dispatch

-- What the trace calls a failure: the remote function raised, or the call never completed.
local function outcome_of(err)
  if err == nil then return "ok" end
  err = tostring(err)
  if find(err, "timeout", 1, true) then return "timeout" end
  if find(err, "refused", 1, true) then return "refused" end
  return "error"
end
api.outcome_of = outcome_of

-- A request's envelope as the trace reads it: the operation the caller's thread runs for,
-- {op, depth, f = the caller's position}. Shared with splay.urpc. (Only a call made for an
-- operation carries anything more: maintenance traffic keeps its bytes.)
local function envelope(req)
  local R = here()
  local ctx = R.trace:context()
  if ctx then req.ctx = { op = ctx.op, depth = ctx.depth + 1, f = R.platform.identity.position } end
  return req
end
api.envelope = envelope

-- Serve one decoded request in the running thread, for the operation its envelope names, and
-- trace it (type "serve" or "userve", bytes in/out). Shared with splay.urpc.
local function serve_traced(req, proto, kind, in_bytes, encode)
  local R = here()
  local trace, now = R.trace, R.platform.now
  local ctx = req.ctx ~= nil and trace:decode(req.ctx) or nil
  trace:learn(req.call)
  local saved
  if ctx then saved = trace:enter(ctx) end
  local t0 = now()
  local reply = R.M.dispatch(req.call, tonumber(req.n) or maxn(req.call), proto)
  if ctx then trace:leave(saved) end
  local data, size = encode(reply)   -- the bytes, or (fast path) a copy and its size
  size = size or #data
  if trace:enabled() then
    trace:row(t0, kind, ctx and ctx.f or 0, req.call[1] == PING and "ping" or req.call[1],
      size, in_bytes, reply.ok and "ok" or "error", ctx and ctx.op or "", ctx and ctx.depth or 0,
      now() - t0)
  end
  return data, size
end
api.serve_traced = serve_traced

local function encode_reply(reply)
  local benc = here().benc
  local ok, data = pcall(benc.encode, reply)
  if not ok then data = benc.encode({ ok = false, err = "rpc: cannot encode the results: " .. tostring(data) }) end
  return data
end

local function copy_reply(reply)
  local ok, r, size = pcall(copy_fields, reply, here().benc.settings.max_depth)
  if not ok then r, size = copy_fields({ ok = false, err = "rpc: cannot encode the results: " .. tostring(r) }) end
  return r, size
end

-- A request that came by the fast path ({link, request, size}), in its connection's thread:
-- false when the connection must close.
local function serve_fast(item)
  if not fast.received(item) then return false end
  return fast.reply(item, serve_traced(item[2], "rpc", "serve", item[3], copy_reply))
end

-- One request: {call = {...}, n = k} -> encoded reply
local function serve_request(msg)
  local ok, req = pcall(here().benc.decode, msg)
  if not ok or type(req) ~= "table" or type(req.call) ~= "table" then
    return encode_reply({ ok = false, err = "rpc: malformed request" })
  end
  return serve_traced(req, "rpc", "serve", #msg, encode_reply)
end

local function handle(c)
  local R = here()
  local llenc = R.llenc
  R.socket.internal(c)   -- rpc's own traffic: traced as calls, not as the app's raw sockets
  -- A kept connection may outlive the node (job end): close abortively so that this node's
  -- port is not left in TIME_WAIT, where the next job on this daemon could not bind it. The
  -- server closes only after the client's EOF or its own idle timeout: no reply is cut.
  c:setoption("linger", { on = true, timeout = 0 })
  c:settimeout(R.M.settings.idle_timeout)
  while true do
    local msg = llenc.receive(c)
    if not msg then break end
    if not llenc.send(c, serve_request(msg)) then break end
    c.await_first = true
  end
  c:close()
end

function api.server(p, max, backlog)
  local R = here()
  local M = R.M
  local settings = M.settings
  local ok, srv = R.net.server(p, handle, tonumber(max) or settings.max, backlog or settings.backlog)
  if not ok then return nil, srv end
  M.server_socket = srv
  if R.platform.sim_net then
    local ip, port = srv:getsockname()
    fast.serve("tcp", ip, port, serve_fast, tonumber(max) or settings.max, settings)
  end
  return true
end

-- A call's trace row, for the operation the calling thread runs for (shared with splay.urpc).
local function traced(kind, ip, port, name, out, inb, outcome, t0)
  local R = here()
  local trace = R.trace
  if not trace:enabled() then return end
  local ctx = trace:context()
  trace:row(t0, kind, trace:peer(ip, port), name == PING and "ping" or name, out, inb, outcome,
    ctx and ctx.op or "", ctx and ctx.depth + 1 or 0, R.platform.now() - t0)
end
api.traced = traced

function api.acall(...)
  local R = here()
  local ip, port, call, timeout = parse(...)
  timeout = tonumber(timeout) or R.M.settings.default_timeout
  if type(call) == "string" then call = { call } end
  if type(call) ~= "table" or type(call[1]) ~= "string" then
    return false, "rpc: the call must be {'function_name', args...} or 'function_name'"
  end
  if not ip or not port then return false, "rpc: bad destination" end
  local key = key_of(ip, port)
  local req = envelope({ call = call, n = maxn(call) })
  local ctx = req.ctx
  local conn, benc = R.conn, R.benc
  local is_fast = conn:takes_fast_path(ip, port, key)
  -- fast: req itself travels, its call and ctx replaced by their copies (benc_copy.copy_fields)
  local ok, msg, size = pcall(is_fast and copy_fields or benc.encode, req, benc.settings.max_depth)
  if not ok then return false, "rpc: cannot encode the arguments: " .. tostring(msg) end
  size = size or #msg
  local t0 = R.platform.now()
  local deadline = t0 + timeout
  local data, dsize, err
  if is_fast then
    data, dsize, err = conn:fast_exchange(ip, port, key, msg, size, deadline)
    if data == false then   -- not sent: the socket path encodes what the app gave
      req.call, req.ctx = call, ctx
      is_fast, msg = false, benc.encode(req)
    end
  end
  if not is_fast then
    data, err = conn:socket_exchange(ip, port, key, msg, deadline)
    dsize = data and #data
  end
  if not data then
    traced("call", ip, port, call[1], size, 0, outcome_of(err), t0)
    return false, "rpc to " .. tostring(ip) .. ":" .. tostring(port) .. " failed: " .. tostring(err)
  end
  local reply = data
  if not is_fast then
    local dok
    dok, reply = pcall(benc.decode, data)
    if not dok or type(reply) ~= "table" then
      traced("call", ip, port, call[1], size, dsize, "error", t0)
      return false, "rpc: malformed reply"
    end
  end
  traced("call", ip, port, call[1], size, dsize, reply.ok and "ok" or "error", t0)
  if not reply.ok then return false, tostring(reply.err) end
  R.trace:learn(reply.r)
  local res = reply.r or {}
  res.n = tonumber(reply.n) or maxn(res)
  return true, res
end

-- The call forms every SPLAY RPC flavour offers, built on mod.acall (used by splay.urpc too).
function C.client_api(mod)
  mod.a_call = mod.acall
  mod.a = { call = mod.acall }
  function mod.call(...)
    local ok, res = mod.acall(...)
    if not ok then return nil, res end
    return unpack(res, 1, res.n)
  end
  function mod.ecall(...)
    local ok, res = mod.acall(...)
    if not ok then error(res, 2) end
    return unpack(res, 1, res.n)
  end
  function mod.ping(a, b, c)
    local ip, port, timeout
    if type(a) == "table" then ip, port, timeout = a.ip, a.port, b else ip, port, timeout = a, b, c end
    local now = here().platform.now
    local t0 = now()
    local ok, err = mod.acall(ip, port, { PING }, timeout)
    if not ok then return nil, err end
    return now() - t0
  end
  function mod.proxy(node)
    return setmetatable({}, { __index = function(self, name)
      return function(first, ...)
        if first == self then return mod.call(node, { name, ... }) end
        return mod.call(node, { name, first, ... })
      end
    end })
  end
  return mod
end

return C
