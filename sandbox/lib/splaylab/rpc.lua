--[=[
splaylab.rpc - "splay.rpc": remote calls of the application's global functions over TCP.

  rpc.server(port | node [, max [, backlog]]) -> true | nil, err
  rpc.call(node, {'fn', a1, ...} | 'fn' [, timeout]) or rpc.call(ip, port, call [, timeout])
      -> fn's results | nil, err
  rpc.acall(...) / rpc.a_call(...) / rpc.a.call(...) -> true, {results, n = k} | false, err
  rpc.ecall(...) -> results, raises on failure
  rpc.ping(node [, timeout]) -> RTT in seconds | nil, err
  rpc.proxy(node) -> object; obj:fn(a, b) == rpc.call(node, {'fn', a, b})
Wire: one TCP connection per call (as SPLAY), frames of splaylab.llenc carrying
splaylab.benc: request {call = {...}, n = #args + 1}, reply {ok = true, r = {...}, n = k} or
{ok = false, err = "..."}. The server runs every request in its own events thread and looks the
function up by name (dotted names allowed) in settings.env, the application's environment
(node.lua sets it): any global function of the app is callable, nothing of the runtime is;
a name that is not a function called without arguments returns that global's value (SPLAY).
Timeout: settings.default_timeout (60 s) covers connect, send and the whole wait for the reply.
An error raised by the remote function comes back as nil, "remote error: ..." and is logged on
the server as a warning; the server keeps serving.
]=]
local socket = require "splaylab.socket"
local llenc = require "splaylab.llenc"
local net = require "splaylab.net"
local benc = require "splaylab.benc"
local platform = require "splaylab.platform"
local log = require "splaylab.log"

local M = { _NAME = "splaylab.rpc", _VERSION = "0.1",
  settings = { default_timeout = 60, max = 1024, backlog = 128, idle_timeout = 60, env = nil } }

local type, tostring, tonumber, pcall, select, unpack, error, setmetatable, maxn =
  type, tostring, tonumber, pcall, select, unpack, error, setmetatable, table.maxn
local gmatch = string.gmatch

local l = log.new(1, "[splay.rpc]")
local function pack(...) return { n = select("#", ...), ... } end
local PING = "\0ping"

-- (node, call, timeout) or (ip, port, call, timeout) -> ip, port, call, timeout
local function parse(a, b, c, d)
  if type(a) == "table" then return a.ip, tonumber(a.port), b, c end
  return a, tonumber(b), c, d
end

local function find_function(name)
  local v = M.settings.env
  if type(name) ~= "string" then return nil end
  for part in gmatch(name, "[^%.]+") do
    if type(v) ~= "table" then return nil, nil end
    v = v[part]
  end
  if type(v) == "function" then return v end
  return nil, v
end

-- Run one decoded call {name, args...} (n values) against the app's globals -> reply table
-- {ok, r, n} or {ok = false, err}. Shared with splay.urpc (`proto` names the module in errors).
function M.dispatch(call, n, proto)
  if call[1] == PING then return { ok = true, r = {}, n = 0 } end
  local f, value = find_function(call[1])
  if not f then
    -- SPLAY returns the value of a global variable called without arguments (the paper's
    -- call(finger[1], 'predecessor') reads the variable `predecessor`, nil included)
    if n <= 1 then return { ok = true, r = { value }, n = 1 } end
    return { ok = false, err = proto .. ": no function '" .. tostring(call[1]) .. "' on this node" }
  end
  local res = pack(pcall(f, unpack(call, 2, n)))
  local nres = res.n
  if not res[1] then
    l:warn("call to '" .. tostring(call[1]) .. "' raised: " .. tostring(res[2]))
    return { ok = false, err = "remote error: " .. tostring(res[2]) }
  end
  local r = {}
  for i = 2, nres do r[i - 1] = res[i] end
  return { ok = true, r = r, n = nres - 1 }
end

-- One request: {call = {...}, n = k} -> reply table
local function serve_request(msg)
  local ok, req = pcall(benc.decode, msg)
  if not ok or type(req) ~= "table" or type(req.call) ~= "table" then
    return { ok = false, err = "rpc: malformed request" }
  end
  return M.dispatch(req.call, tonumber(req.n) or maxn(req.call), "rpc")
end

local function handle(c)
  c:settimeout(M.settings.idle_timeout)
  while true do
    local msg = llenc.receive(c)
    if not msg then break end
    local reply = serve_request(msg)
    local ok, data = pcall(benc.encode, reply)
    if not ok then data = benc.encode({ ok = false, err = "rpc: cannot encode the results: " .. tostring(data) }) end
    if not llenc.send(c, data) then break end
  end
  c:close()
end

function M.server(p, max, backlog)
  local ok, srv = net.server(p, handle, tonumber(max) or M.settings.max, backlog or M.settings.backlog)
  if not ok then return nil, srv end
  M.server_socket = srv
  return true
end

function M.acall(...)
  local ip, port, call, timeout = parse(...)
  timeout = tonumber(timeout) or M.settings.default_timeout
  if type(call) == "string" then call = { call } end
  if type(call) ~= "table" or type(call[1]) ~= "string" then
    return false, "rpc: the call must be {'function_name', args...} or 'function_name'"
  end
  if not ip or not port then return false, "rpc: bad destination" end
  local ok, msg = pcall(benc.encode, { call = call, n = maxn(call) })
  if not ok then return false, "rpc: cannot encode the arguments: " .. tostring(msg) end
  local deadline = platform.now() + timeout
  local s, err = socket.tcp()
  if not s then return false, err end
  local function remaining()
    local left = deadline - platform.now()
    s:settimeout(left > 0 and left or 0)
    return left > 0
  end
  remaining()
  local r
  r, err = s:connect(ip, port)
  if r and remaining() then r, err = llenc.send(s, msg) end
  local data
  if r and remaining() then data, err = llenc.receive(s) end
  s:close()
  if not data then
    if r and not err then err = "timeout" end
    return false, "rpc to " .. tostring(ip) .. ":" .. tostring(port) .. " failed: " .. tostring(err)
  end
  local dok, reply = pcall(benc.decode, data)
  if not dok or type(reply) ~= "table" then return false, "rpc: malformed reply" end
  if not reply.ok then return false, tostring(reply.err) end
  local res = reply.r or {}
  res.n = tonumber(reply.n) or maxn(res)
  return true, res
end

-- The call forms every SPLAY RPC flavour offers, built on mod.acall (used by splay.urpc too).
function M.client_api(mod)
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
    local t0 = platform.now()
    local ok, err = mod.acall(ip, port, { PING }, timeout)
    if not ok then return nil, err end
    return platform.now() - t0
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

M.client_api(M)
M.PING = PING

return M
