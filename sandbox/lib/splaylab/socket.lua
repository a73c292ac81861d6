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
use: the rules and their messages), splaylab.socket_udp (the UDP object) and
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
local sn = require "splaylab.socket_netem"
local relay = require "splaylab.socket_relay"

local M = { _NAME = "splaylab.socket", _VERSION = "0.1" }

local tostring, tonumber, setmetatable, ipairs = tostring, tonumber, setmetatable, ipairs
local check_dest, may_bind, bind_denied, count_socket, budget =
  policy.check_dest, policy.may_bind, policy.bind_denied, policy.count_socket, policy.budget

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
  if INTERNAL[obj] or not trace.enabled() then return end
  trace.row(t0, typ, peer or 0, "", bytes, 0, outcome, "", 0, platform.now() - t0)
end

function M.init(opts)
  policy.init(opts)
  M.stats = policy.stats
  netem.init(opts.net, opts.position, opts.job_nodes, policy.settings.nb_ports, opts.net_epoch, opts.addresses)
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
  return policy.unroute(ip, port), port, family
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

-- tcp ------------------------------------------------------------------------------------------
local tcp = setmetatable({}, { __index = common })
local tcp_mt = { __index = tcp, __tostring = function(o) return "tcp{" .. o.kind .. "}: splay" end }

local function wrap_tcp(raw, kind)
  raw:settimeout(0)
  local obj = setmetatable({ kind = kind, timeout = nil }, tcp_mt)
  RAW[obj] = raw
  return obj
end

function tcp:bind(host, port)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  if not may_bind(port) then return bind_denied(port) end
  raw:setoption("reuseaddr", true)
  local ok, err = raw:bind(policy.bind_host(host), port)
  if not ok and policy.own_job_ip(host) then ok, err = raw:bind("*", port) end
  if ok then self.bound = true end
  return ok, err
end

function tcp:listen(backlog)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  local ok, err = raw:listen(backlog or 32)
  if ok then self.kind = "server" end
  return ok, err
end

local tcp_connect

function tcp:connect(host, port)
  local t0 = platform.now()
  local ok, err = tcp_connect(self, host, port)
  if RAW[self] and not INTERNAL[self] and trace.enabled() then
    local ip = platform.toip(tostring(host))
    local peer = ip and trace.peer(ip, tonumber(port)) or tostring(host) .. ":" .. tostring(port)
    if ok then PEER[self] = peer end
    traced(self, "connect", peer, 0, ok and "ok" or (err == "timeout" and "timeout" or
      (tostring(err):find("refused", 1, true) and "refused" or "error")), t0)
  end
  return ok, err
end

function tcp_connect(self, host, port)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  local ip, err = check_dest(host, port, "connect")
  if not ip then return nil, err end
  local deadline = deadline_of(self)
  local peer = netem.active and netem.position_of(ip, tonumber(port))
  if peer then
    -- emulated WAN: a partition swallows the SYN (the connect waits for the heal or its
    -- timeout); the handshake costs a round trip
    while netem.partitioned(peer) do
      if deadline and platform.now() >= deadline then return nil, "timeout" end
      events.sleep(netem.PARTITION_POLL)
      if not RAW[self] then return nil, "closed" end
    end
  end
  local own = policy.settings.own_ip
  if own and not self.bound and policy.is_loopback(ip) then
    -- to a loopback peer, leave from the node's own address (else the kernel picks
    -- 127.0.0.1); a failed bind leaves the choice to the kernel, as before
    self.bound = raw:bind(own, 0) and true
  end
  local ok
  -- a node of this daemon: over 127.0.0.1; one behind another router: the relay's door
  local door = policy.relay_door(ip, port)
  local to, to_port = door and "127.0.0.1" or policy.route(ip, port), door or port
  ok, err = raw:connect(to, to_port)
  while not ok do
    if err == "already connected" then break end
    if err ~= "timeout" and err ~= "Operation already in progress" then return nil, err end
    if not events.wait_socket(raw, "w", deadline) then
      if not RAW[self] then return nil, "closed" end
      return nil, "timeout"
    end
    ok, err = raw:connect(to, to_port)
  end
  if door then
    ok, err = relay.handshake(raw, policy.settings.job_id, ip, port, deadline)
    if not ok then return nil, RAW[self] and err or "closed" end
  end
  self.kind = "client"
  if peer then
    self.peer = peer
    sn.introduce(raw, peer)
  end
  return 1
end

function tcp:accept()
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  local deadline = deadline_of(self)
  while true do
    local c, err = raw:accept()
    if c then
      local ok, e = count_socket()
      if not ok then c:close(); return nil, e end
      local obj = wrap_tcp(c, "client")
      if netem.active then obj.learn_peer = true end
      return obj
    end
    if err ~= "timeout" then return nil, err end
    if not events.wait_socket(raw, "r", deadline) then
      if not RAW[self] then return nil, "closed" end
      return nil, "timeout"
    end
  end
end

function tcp:send(data, i, j)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  data = tostring(data)
  i, j = tonumber(i) or 1, tonumber(j) or #data
  if i < 1 then i = 1 end
  if j > #data then j = #data end
  local ok, err = budget("send", j - i + 1)
  if not ok then return nil, err, i - 1 end
  local deadline = deadline_of(self)
  if self.learn_peer then sn.learn_peer(self, raw, deadline) end
  if not INTERNAL[self] and trace.enabled() then
    local peer = PEER[self]
    if not peer then
      local ip, rport = raw:getpeername()
      peer = ip and trace.peer(ip, rport) or 0
      PEER[self] = peer
    end
    traced(self, "send", peer, j - i + 1, "ok", platform.now())
  end
  if self.peer then
    policy.stats.sent = policy.stats.sent + (j - i + 1)
    sn.queue_stream(self, raw, data:sub(i, j))
    return j
  end
  local pos = i
  while true do
    local last, e, partial = raw:send(data, pos, j)
    local upto = last or partial or (pos - 1)
    policy.stats.sent = policy.stats.sent + (upto - pos + 1)
    if last then return last end
    if e ~= "timeout" then return nil, e, upto end
    pos = upto + 1
    if not events.wait_socket(raw, "w", deadline) then
      return nil, RAW[self] and "timeout" or "closed", upto
    end
  end
end

function tcp:receive(pattern, prefix)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  pattern = pattern or "*l"
  prefix = prefix and tostring(prefix) or ""
  local got = {}
  local ngot = 0
  local deadline = deadline_of(self)
  local size = tonumber(pattern)
  if self.learn_peer then sn.learn_peer(self, raw, deadline) end
  -- bytes read while looking for a preamble that was not there
  local whole, stashed = sn.unstash(self, pattern, size)
  if whole then return prefix .. stashed end
  if stashed then got[1], ngot = stashed, #stashed end
  while true do
    if size and size - ngot <= 0 then return prefix .. table.concat(got) end
    local left = policy.settings.max_receive - policy.stats.received
    if left <= 0 then
      local _, berr = budget("receive", 1)
      return nil, berr, prefix .. table.concat(got)
    end
    -- never hand out more than the budget: a sized read asks for at most what is left; a
    -- line or *a read is cut there (the rest is lost: the budget is spent for good)
    local want = size and math.min(size - ngot, left) or pattern
    local data, err, partial = raw:receive(want)
    local chunk = data or partial or ""
    if #chunk > left then
      chunk, data, err = chunk:sub(1, left), nil, "timeout"
    end
    if #chunk > 0 then
      got[#got + 1] = chunk
      ngot = ngot + #chunk
      policy.stats.received = policy.stats.received + #chunk
    end
    if policy.stats.received >= policy.settings.max_receive and not data then
      local _, berr = budget("receive", 1)
      return nil, berr, prefix .. table.concat(got)
    end
    if data and not (size and ngot < size) then
      return prefix .. table.concat(got)
    elseif data then -- luacheck: ignore 542 (short read: loop again)
    elseif err ~= "timeout" then
      return nil, err, prefix .. table.concat(got)
    elseif not events.wait_socket(raw, "r", deadline) then
      return nil, RAW[self] and "timeout" or "closed", prefix .. table.concat(got)
    end
  end
end

function tcp:shutdown(mode)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  return raw:shutdown(mode)
end

-- udp (splaylab.socket_udp) ------------------------------------------------------------------
local wrap_udp = require("splaylab.socket_udp").build {
  raw = RAW, internal = INTERNAL, common = common, traced = traced, deadline_of = deadline_of,
}

-- the module table given to student code -----------------------------------------------------
function M.tcp()
  local ok, err = count_socket()
  if not ok then return nil, err end
  local raw, e = platform.tcp()
  if not raw then policy.stats.sockets = policy.stats.sockets - 1; return nil, e end
  return wrap_tcp(raw, "master")
end

function M.udp()
  local ok, err = count_socket()
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