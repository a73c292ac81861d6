--[[
splaylab.socket - SPLAY's restricted, coroutine-aware LuaSocket ("splay.socket", and the
global `socket` set by splay.base): the module table, the common and the TCP socket objects.

Usage (student side, LuaSocket's API):
  local s = socket.tcp(); s:settimeout(5); s:connect(ip, port); s:send("x\n"); s:receive("*l")
  socket.bind(host, port [, backlog]), socket.connect(host, port), socket.udp(),
  socket.select(recvt, sendt, timeout), socket.sleep(t), socket.gettime(), socket.dns.toip(h)
Runtime side: M.init{me = {ip, port}, peers = {{ip, port}, ...}, nb_ports, bind_ports,
  allow = {"ip:port" | "ip:*"}, deny = {"a.b.c.d" | "a.b.c.d/n"}, max_sockets, max_send,
  max_receive, udp_drop_ratio, net, ...}; M.public() (the student's table), M.internal(s) (a
  socket of splay.rpc / splay.urpc: not traced), M.is_socket(o), M.settings, M.stats.

Every raw socket is non-blocking; an operation that would block suspends the calling events
thread until the socket is ready (events.wait_socket) or the socket's timeout passes. Outside a
thread it blocks the process. The raw LuaSocket object is never reachable from student code.
Beside this file: splaylab.socket_policy (the ports, addresses, sockets and bytes a node may
use: the rules and their messages), splaylab.socket_tcp (the TCP object), splaylab.socket_udp
(the UDP object) and
splaylab.socket_netem (the emulated WAN at the sender: delay queues, the position preamble),
splaylab.socket_relay (a connect through the daemon's node relay) and splaylab.socket_errors
(newtry / protect).
Limits and holes: socket.select is a polling loop (10 ms); no bandwidth shaping
(network_send_speed is not enforced); IPv6 is not supported.
]]
local platform = require "splaylab.platform"
local events = require "splaylab.events"
local netem = require "splaylab.netem"
local trace = require "splaylab.trace"
local policy = require "splaylab.socket_policy"

local M = { _NAME = "splaylab.socket", _VERSION = "0.1" }

local tostring, tonumber, setmetatable, ipairs = tostring, tonumber, setmetatable, ipairs

-- The policy's tables: settings is changed in place, stats is a new table at each init.
M.settings = policy.settings
M.stats = policy.stats
M.ipv4_network = policy.ipv4_network

local RAW = setmetatable({}, { __mode = "k" })   -- wrapper -> raw LuaSocket object
-- The trace (docs/trace.md) lists the app's own sockets' connects and sends; sockets of
-- splay.rpc / splay.urpc are marked internal (their messages are traced as calls), and a
-- connected socket's peer is kept here, out of student code's reach.
local INTERNAL = setmetatable({}, { __mode = "k" })
local PEER = setmetatable({}, { __mode = "k" })

function M.internal(obj) INTERNAL[obj] = true; return obj end

local function traced(obj, typ, peer, bytes, outcome, t0)
  if INTERNAL[obj] or not trace:enabled() then return end
  trace:row(t0, typ, peer or 0, "", bytes, 0, outcome, "", 0, platform.now() - t0)
end

function M.init(opts)
  policy:init(opts)
  M.stats = policy.stats
  netem:init(opts.net, opts.position, opts.job_nodes, policy.settings.nb_ports, opts.net_epoch, opts.addresses)
end

local function deadline_of(obj)
  local t = obj.timeout
  if t == nil or t < 0 then return nil end
  return platform.now() + t
end

-- common methods -----------------------------------------------------------------------------
local common = {}

function common:settimeout(t)
  self.timeout = tonumber(t)
  return 1
end

function common:close()
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  RAW[self] = nil
  if self.outq and self.outq[1] then
    -- emulated WAN: data still in the delay queue leaves first; the flusher closes the socket
    events.cancel_socket(raw, "r")
    self.drain = raw
    return 1
  end
  events.cancel_socket(raw)
  raw:close()
  policy.stats.sockets = policy.stats.sockets - 1
  return 1
end

function common:getsockname()
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  return raw:getsockname()
end

function common:getpeername()
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  local ip, port, family = raw:getpeername()
  if not ip then return ip, port end
  return policy:unroute(ip, port), port, family
end

local SAFE_OPTIONS = { ["tcp-nodelay"] = true, keepalive = true, reuseaddr = true, linger = true,
  broadcast = false, ["ip-multicast-loop"] = false }
function common:setoption(name, value)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  if not SAFE_OPTIONS[name] then return nil, "option " .. tostring(name) .. " is not available" end
  return raw:setoption(name, value)
end

function common.getfd() return -1 end
function common.dirty() return false end

-- tcp (splaylab.socket_tcp) ------------------------------------------------------------------
local wrap_tcp = require("splaylab.socket_tcp").build {
  raw = RAW, internal = INTERNAL, peer = PEER, common = common, traced = traced, deadline_of = deadline_of,
}

-- udp (splaylab.socket_udp) ------------------------------------------------------------------
local wrap_udp = require("splaylab.socket_udp").build {
  raw = RAW, internal = INTERNAL, common = common, traced = traced, deadline_of = deadline_of,
}

-- the module table given to student code -----------------------------------------------------
function M.tcp()
  local ok, err = policy:count_socket()
  if not ok then return nil, err end
  local raw, e = platform.tcp()
  if not raw then policy.stats.sockets = policy.stats.sockets - 1; return nil, e end
  return wrap_tcp(raw, "master")
end

function M.udp()
  local ok, err = policy:count_socket()
  if not ok then return nil, err end
  local raw, e = platform.udp()
  if not raw then policy.stats.sockets = policy.stats.sockets - 1; return nil, e end
  return wrap_udp(raw)
end

function M.connect(host, port)
  local s, err = M.tcp()
  if not s then return nil, err end
  local ok
  ok, err = s:connect(host, port)
  if not ok then s:close(); return nil, err end
  return s
end

function M.bind(host, port, backlog)
  local s, err = M.tcp()
  if not s then return nil, err end
  local ok
  ok, err = s:bind(host, port)
  if ok then ok, err = s:listen(backlog) end
  if not ok then s:close(); return nil, err end
  return s
end

-- Cooperative select over wrapped sockets: polls every 10 ms inside a thread.
function M.select(recvt, sendt, timeout)
  local deadline = timeout and timeout >= 0 and platform.now() + timeout or nil
  while true do
    local r, w, map = {}, {}, {}
    for _, o in ipairs(recvt or {}) do local raw = RAW[o]; if raw then r[#r + 1] = raw; map[raw] = o end end
    for _, o in ipairs(sendt or {}) do local raw = RAW[o]; if raw then w[#w + 1] = raw; map[raw] = o end end
    local rr, ww = platform.select(r, w, 0)
    if #rr > 0 or #ww > 0 then
      local ro, wo = {}, {}
      for _, raw in ipairs(rr) do ro[#ro + 1] = map[raw]; ro[map[raw]] = true end
      for _, raw in ipairs(ww) do wo[#wo + 1] = map[raw]; wo[map[raw]] = true end
      return ro, wo
    end
    if deadline and platform.now() >= deadline then return {}, {}, "timeout" end
    events.sleep(0.01)
  end
end

function M.sleep(t) events.sleep(t) end
function M.gettime() return platform.now() end
M.dns = { toip = function(host) return platform.toip(tostring(host)) end }
M._VERSION = "LuaSocket (SplayLab restricted)"

-- newtry / protect: LuaSocket's error helpers (splaylab.socket_errors).
local errors = require "splaylab.socket_errors"
M.newtry, M.protect = errors.newtry, errors.protect

-- Student-facing table: the API only (init, settings, stats stay runtime-side).
function M.public()
  return {
    tcp = M.tcp, udp = M.udp, connect = M.connect, bind = M.bind, select = M.select,
    sleep = M.sleep, gettime = M.gettime, dns = M.dns, newtry = M.newtry, protect = M.protect,
    _VERSION = M._VERSION,
  }
end

-- for splaylab.net / rpc: is this a wrapped socket?
function M.is_socket(o) return RAW[o] ~= nil end

return M