--[[
splaylab.urpc_core - splay.urpc's functions (splaylab.urpc's header says what they do), one set
for every node of a simulation (splaylab.sim.world's PROCESS_WIDE), as splaylab.rpc_core's. A
node's urpc state is a table in its events state (its URPC slot, made by splaylab.urpc): its module
table M (the app's splay.urpc and its settings), its modules (events, socket, benc, platform,
trace, rpc, a logger) and its client side (the client socket, the calls pending, their reader).
Every function here runs in a node's code, so it reads the state of the node whose code runs.
  core.api    the functions splaylab.urpc puts in its module table (server, acall)
]]
local events_core = require "splaylab.events_core"
local fast = require "splaylab.rpc_fast"
local copy_fields = require("splaylab.benc_copy").copy_fields   -- the fast path's messages

local C = { _NAME = "splaylab.urpc_core", _VERSION = "0.2" }
local api = {}
C.api = api

local type, tostring, tonumber, pcall, maxn = type, tostring, tonumber, pcall, table.maxn
local current_state = events_core.current_state

-- the node whose code runs: its urpc state
local S_URPC = events_core.ST.URPC   -- its slot in a node's events state
local function here() return current_state()[S_URPC] end

local function encode_reply(U, id)
  local benc = U.benc
  return function(reply)
    reply.id = id
    local ok, out = pcall(benc.encode, reply)
    if not ok then out = benc.encode({ id = id, ok = false, err = "urpc: cannot encode the results" }) end
    return out
  end
end

local function copy_reply(U, id)
  local max_depth = U.benc.settings.max_depth
  return function(reply)
    reply.id = id
    local ok, r, size = pcall(copy_fields, reply, max_depth)
    if not ok then r, size = copy_fields({ id = id, ok = false, err = "urpc: cannot encode the results" }) end
    return r, size
  end
end

-- A request that came by the fast path ({reply box, request, size, ...}), in a thread of its own.
local function serve_fast(item)
  if not fast.udp_received(item) then return end
  local U = here()
  local req = item[2]
  fast.udp_reply(item, U.rpc.serve_traced(req, "urpc", "userve", item[3], copy_reply(U, req.id)))
end

function api.server(p)
  local U = here()
  local M, socket, events, benc, rpc = U.M, U.socket, U.events, U.benc, U.rpc
  local port = type(p) == "table" and tonumber(p.port) or tonumber(p)
  local u, err = socket.udp()
  if not u then return nil, err end
  socket.internal(u)
  local ok
  ok, err = u:setsockname("*", port)
  if not ok then
    u:close()
    U.log:error("server on port " .. tostring(port) .. ": " .. tostring(err))
    return nil, err
  end
  events.thread(function()
    while true do
      local data, ip, rport = u:receivefrom(M.settings.max_datagram)
      if data then
        events.thread(function()
          local dok, req = pcall(benc.decode, data)
          if not dok or type(req) ~= "table" or type(req.call) ~= "table" then return end
          u:sendto((rpc.serve_traced(req, "urpc", "userve", #data, encode_reply(U, req.id))), ip, rport)
        end)
      elseif ip == "closed" then
        return
      end
    end
  end)
  if U.platform.sim_net then
    local ip, bport = u:getsockname()
    fast.serve("udp", ip, bport, serve_fast)
  end
  return true
end

-- client side ----------------------------------------------------------------------------------
local function arrived(U, rep, size)
  if type(rep) == "table" and rep.id and U.pending[rep.id] then
    rep.size = size
    U.events.fire("urpc:" .. tostring(rep.id), rep)
  end
end

local function start_reader(U)
  local events = U.events
  if U.reader and not events.dead(U.reader) then return end
  U.reader = events.thread(function()
    local client, benc = U.client, U.benc
    client:settimeout(0.5)
    while U.npending > 0 do
      local data = client:receivefrom(U.M.settings.max_datagram)
      if data then
        local ok, rep = pcall(benc.decode, data)
        if ok then arrived(U, rep, #data) end
      end
    end
    U.reader = nil
  end)
end

-- the same reader on the fast path's box (its wake-ups as the socket's: 0.5 s timeouts)
local function start_fast_reader(U)
  local events = U.events
  if U.fast_reader and not events.dead(U.fast_reader) then return end
  U.fast_reader = events.thread(function()
    local now = U.platform.now
    while U.npending > 0 do
      local got = fast.udp_take(U.fast_box, U.M.settings.max_datagram)
      if got then
        arrived(U, got[1], got[2])
      else
        events.wait_socket(U.fast_box, "r", now() + 0.5)
      end
    end
    U.fast_reader = nil
  end)
end

function api.acall(a, b, c, d)
  local U = here()
  local M, platform, rpc, benc = U.M, U.platform, U.rpc, U.benc
  local settings = M.settings
  local ip, port, call, timeout
  if type(a) == "table" then ip, port, call, timeout = a.ip, tonumber(a.port), b, c
  else ip, port, call, timeout = a, tonumber(b), c, d end
  timeout = tonumber(timeout) or settings.default_timeout
  if type(call) == "string" then call = { call } end
  if type(call) ~= "table" or type(call[1]) ~= "string" then
    return false, "urpc: the call must be {'function_name', args...} or 'function_name'"
  end
  if not U.client then
    local client, err = U.socket.udp()
    if not client then return false, err end
    U.socket.internal(client)
    U.client = client
  end
  local id = U.next_id + 1
  U.next_id = id
  local net = platform.sim_net
  -- the fast path unless an app's own socket is bound there
  local is_fast = net ~= nil and net:server_of("udp", ip, port) ~= false
  local req = rpc.envelope({ id = id, call = call, n = maxn(call) })
  local ok, msg, size = pcall(is_fast and copy_fields or benc.encode, req, benc.settings.max_depth)
  if not ok then return false, "urpc: cannot encode the arguments: " .. tostring(msg) end
  size = size or #msg
  if size > settings.max_datagram then return false, "urpc: request larger than one datagram" end
  U.pending[id] = true
  U.npending = U.npending + 1
  if is_fast then
    if not U.fast_box then U.fast_box = net:box(platform.sim_owner) end
    start_fast_reader(U)
  else
    start_reader(U)
  end
  local t0 = platform.now()
  local deadline = t0 + timeout
  local step = timeout / settings.tries
  local rep, err
  local sent_bytes = 0
  while true do
    local sent, serr
    if is_fast then
      sent, serr = fast.udp_send(U.fast_box, msg, size, ip, port)
    else
      sent, serr = U.client:sendto(msg, ip, port)
    end
    if sent then sent_bytes = sent_bytes + size end
    if not sent then err = serr; break end
    local left = deadline - platform.now()
    if left <= 0 then err = "timeout"; break end
    local got, r = U.events.wait("urpc:" .. id, step < left and step or left)
    if got then rep = r; break end
    if platform.now() >= deadline then err = "timeout"; break end
  end
  U.pending[id] = nil
  U.npending = U.npending - 1
  if not rep then
    rpc.traced("ucall", ip, port, call[1], sent_bytes, 0, rpc.outcome_of(err), t0)
    return false, "urpc to " .. tostring(ip) .. ":" .. tostring(port) .. " failed: " .. tostring(err)
  end
  rpc.traced("ucall", ip, port, call[1], sent_bytes, rep.size or 0, rep.ok and "ok" or "error", t0)
  if not rep.ok then return false, tostring(rep.err) end
  U.trace:learn(rep.r)
  local res = rep.r or {}
  res.n = tonumber(rep.n) or maxn(res)
  return true, res
end

return C
