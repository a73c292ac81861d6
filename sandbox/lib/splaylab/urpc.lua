--[[
splaylab.urpc - "splay.urpc": splay.rpc's API over UDP (one datagram per request and reply).

  urpc.server(port | node), urpc.call, urpc.acall / a_call, urpc.ecall, urpc.ping, urpc.proxy
Same call forms and results as splaylab.rpc. Requests carry an id; the client resends every
timeout / settings.tries seconds until a reply with that id arrives or the timeout passes
(at-least-once: a slow server may run a request twice). Replies come back to one client UDP
socket per node, read by a thread that exists only while calls are pending (an idle node can
still end). Limits: a request or reply must fit in one datagram (settings.max_datagram, 8 KB);
UDP datagrams obey udp_drop_ratio like any other.
In the simulator a call takes the message fast path (splaylab.rpc_fast: copies instead of
datagrams, the same rules, draws and losses) unless it runs with --sim-transport sockets.
]]
local events = require "splaylab.events"
local socket = require "splaylab.socket"
local benc = require "splaylab.benc"
local platform = require "splaylab.platform"
local log = require "splaylab.log"
local rpc = require "splaylab.rpc"
local trace = require "splaylab.trace"
local fast = require "splaylab.rpc_fast"
local copy_fields = require("splaylab.benc_copy").copy_fields   -- the fast path's messages

local M = { _NAME = "splaylab.urpc", _VERSION = "0.1",
  settings = { default_timeout = 60, tries = 3, max_datagram = 8192 } }

local type, tostring, tonumber, pcall, maxn = type, tostring, tonumber, pcall, table.maxn

local l = log.new(1, "[splay.urpc]")

local function encode_reply(id)
  return function(reply)
    reply.id = id
    local ok, out = pcall(benc.encode, reply)
    if not ok then out = benc.encode({ id = id, ok = false, err = "urpc: cannot encode the results" }) end
    return out
  end
end

local function copy_reply(id)
  return function(reply)
    reply.id = id
    local ok, r, size = pcall(copy_fields, reply, benc.settings.max_depth)
    if not ok then r, size = copy_fields({ id = id, ok = false, err = "urpc: cannot encode the results" }) end
    return r, size
  end
end

-- A request that came by the fast path ({reply box, request, size, ...}), in a thread of its own.
local function serve_fast(item)
  if not fast.udp_received(item) then return end
  local req = item[2]
  fast.udp_reply(item, rpc.serve_traced(req, "urpc", "userve", item[3], copy_reply(req.id)))
end

function M.server(p)
  local port = type(p) == "table" and tonumber(p.port) or tonumber(p)
  local u, err = socket.udp()
  if not u then return nil, err end
  socket.internal(u)
  local ok
  ok, err = u:setsockname("*", port)
  if not ok then
    u:close()
    l:error("server on port " .. tostring(port) .. ": " .. tostring(err))
    return nil, err
  end
  events.thread(function()
    while true do
      local data, ip, rport = u:receivefrom(M.settings.max_datagram)
      if data then
        events.thread(function()
          local dok, req = pcall(benc.decode, data)
          if not dok or type(req) ~= "table" or type(req.call) ~= "table" then return end
          u:sendto((rpc.serve_traced(req, "urpc", "userve", #data, encode_reply(req.id))), ip, rport)
        end)
      elseif ip == "closed" then
        return
      end
    end
  end)
  if platform.sim_net then
    local ip, bport = u:getsockname()
    fast.serve("udp", ip, bport, serve_fast)
  end
  return true
end

-- client side ----------------------------------------------------------------------------------
local client, pending, npending, reader, next_id = nil, {}, 0, nil, 0
local fast_box, fast_reader = nil, nil   -- the fast path's client socket and its reader

local function arrived(rep, size)
  if type(rep) == "table" and rep.id and pending[rep.id] then
    rep.size = size
    events.fire("urpc:" .. tostring(rep.id), rep)
  end
end

local function start_reader()
  if reader and not events.dead(reader) then return end
  reader = events.thread(function()
    client:settimeout(0.5)
    while npending > 0 do
      local data = client:receivefrom(M.settings.max_datagram)
      if data then
        local ok, rep = pcall(benc.decode, data)
        if ok then arrived(rep, #data) end
      end
    end
    reader = nil
  end)
end

-- the same reader on the fast path's box (its wake-ups as the socket's: 0.5 s timeouts)
local function start_fast_reader()
  if fast_reader and not events.dead(fast_reader) then return end
  fast_reader = events.thread(function()
    while npending > 0 do
      local got = fast.udp_take(fast_box, M.settings.max_datagram)
      if got then
        arrived(got[1], got[2])
      else
        events.wait_socket(fast_box, "r", platform.now() + 0.5)
      end
    end
    fast_reader = nil
  end)
end

function M.acall(a, b, c, d)
  local ip, port, call, timeout
  if type(a) == "table" then ip, port, call, timeout = a.ip, tonumber(a.port), b, c
  else ip, port, call, timeout = a, tonumber(b), c, d end
  timeout = tonumber(timeout) or M.settings.default_timeout
  if type(call) == "string" then call = { call } end
  if type(call) ~= "table" or type(call[1]) ~= "string" then
    return false, "urpc: the call must be {'function_name', args...} or 'function_name'"
  end
  if not client then
    local err
    client, err = socket.udp()
    if not client then return false, err end
    socket.internal(client)
  end
  next_id = next_id + 1
  local id = next_id
  local net = platform.sim_net
  -- the fast path unless an app's own socket is bound there
  local is_fast = net ~= nil and net:server_of("udp", ip, port) ~= false
  local req = rpc.envelope({ id = id, call = call, n = maxn(call) })
  local ok, msg, size = pcall(is_fast and copy_fields or benc.encode, req, benc.settings.max_depth)
  if not ok then return false, "urpc: cannot encode the arguments: " .. tostring(msg) end
  size = size or #msg
  if size > M.settings.max_datagram then return false, "urpc: request larger than one datagram" end
  pending[id] = true
  npending = npending + 1
  if is_fast then
    if not fast_box then fast_box = net:box(platform.sim_owner) end
    start_fast_reader()
  else
    start_reader()
  end
  local t0 = platform.now()
  local deadline = t0 + timeout
  local step = timeout / M.settings.tries
  local rep, err
  local sent_bytes = 0
  while true do
    local sent, serr
    if is_fast then
      sent, serr = fast.udp_send(fast_box, msg, size, ip, port)
    else
      sent, serr = client:sendto(msg, ip, port)
    end
    if sent then sent_bytes = sent_bytes + size end
    if not sent then err = serr; break end
    local left = deadline - platform.now()
    if left <= 0 then err = "timeout"; break end
    local got, r = events.wait("urpc:" .. id, step < left and step or left)
    if got then rep = r; break end
    if platform.now() >= deadline then err = "timeout"; break end
  end
  pending[id] = nil
  npending = npending - 1
  if not rep then
    rpc.traced("ucall", ip, port, call[1], sent_bytes, 0, rpc.outcome_of(err), t0)
    return false, "urpc to " .. tostring(ip) .. ":" .. tostring(port) .. " failed: " .. tostring(err)
  end
  rpc.traced("ucall", ip, port, call[1], sent_bytes, rep.size or 0, rep.ok and "ok" or "error", t0)
  if not rep.ok then return false, tostring(rep.err) end
  trace:learn(rep.r)
  local res = rep.r or {}
  res.n = tonumber(rep.n) or maxn(res)
  return true, res
end

rpc.client_api(M)

return M
