--[[
splaylab.socket - SPLAY's restricted, coroutine-aware LuaSocket ("splay.socket", and the
global `socket` set by splay.base).

Usage (student side, LuaSocket's API):
  local s = socket.tcp(); s:settimeout(5); s:connect(ip, port); s:send("x\n"); s:receive("*l")
  socket.bind(host, port [, backlog]), socket.connect(host, port), socket.udp(),
  socket.select(recvt, sendt, timeout), socket.sleep(t), socket.gettime(), socket.dns.toip(h)
Runtime side: M.init{me = {ip, port}, peers = {{ip, port}, ...}, nb_ports, bind_ports,
  allow = {"ip:port" | "ip:*"}, deny = {"a.b.c.d" | "a.b.c.d/n"}, max_sockets, max_send,
  max_receive, udp_drop_ratio}.

Every raw socket is non-blocking; an operation that would block suspends the calling events
thread until the socket is ready (events.wait_socket) or the socket's timeout passes. Outside a
thread it blocks the process. The raw LuaSocket object is never reachable from student code.

Policy (limits from job.json "limits", see docs/architecture.md):
  bind: only this instance's ports: me.port .. me.port + nb_ports - 1 and bind_ports.
  connect / sendto / setpeername: only the job's nodes (each node's port range) and `allow`;
    a UDP socket may also answer (sendto) any address it received a datagram from;
    denied: nil, "connect to IP:PORT denied: not a node of this job" plus a warning record.
  deny (job.json limits.connect_deny: the controller's blacklist) wins over everything, the
    job's nodes, `allow` and UDP replies included: nil, "connect to IP:PORT denied: blacklisted
    by the controller" (sendto: "send to ...") plus a warning record. IPv4 addresses and CIDR
    networks; other entries (IPv6) are ignored, as the runtime has no IPv6.
  sockets: at most max_sockets open at once ("too many sockets: network_max_sockets = N").
  bytes: max_send / max_receive over the node's life ("send budget exhausted:
    network_max_send = N bytes"); a receive never hands out more than the budget's bytes
    (a read is cut there, a datagram that does not fit is dropped).
  UDP datagrams are dropped with probability udp_drop_ratio.
Limits and holes: socket.select is a polling loop (10 ms); no bandwidth shaping
(network_send_speed is not enforced); IPv6 is not supported.
]]
local platform = require "splaylab.platform"
local events = require "splaylab.events"
local log = require "splaylab.log"
local netem = require "splaylab.netem"
local trace = require "splaylab.trace"

local M = { _NAME = "splaylab.socket", _VERSION = "0.1" }

local type, tostring, tonumber, setmetatable, ipairs, random =
  type, tostring, tonumber, setmetatable, ipairs, math.random
local format = string.format

local l = log.new(1, "[splay.socket]")

M.settings = {
  max_sockets = 256,
  max_send = 1024 * 1024 * 1024,
  max_receive = 1024 * 1024 * 1024,
  udp_drop_ratio = 0,
  nb_ports = 1,
  first_port = nil,     -- me.port
  bind_ports = {},      -- set: port -> true
  peers = {},           -- set: "ip:port" -> true (every port of every node)
  allow = {},           -- set: "ip:port" | "ip:*" -> true
  deny = {},            -- list of { base, size }: IPv4 networks (base address as a number)
}
M.stats = { sockets = 0, sent = 0, received = 0, dropped = 0 }

local MAX_REPLY_PEERS = 4096   -- senders a UDP socket may answer (forgotten in bulk beyond)
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
local warned = {}

local function warn_once(key, msg)
  if not warned[key] then warned[key] = true; l:warn(msg) end
end

-- "a.b.c.d" -> its number, or nil when it is not a dotted IPv4 address
local function ipv4_number(ip)
  local a, b, c, d = tostring(ip):match("^(%d+)%.(%d+)%.(%d+)%.(%d+)$")
  if not a then return nil end
  a, b, c, d = tonumber(a), tonumber(b), tonumber(c), tonumber(d)
  if a > 255 or b > 255 or c > 255 or d > 255 then return nil end
  return ((a * 256 + b) * 256 + c) * 256 + d
end

-- "a.b.c.d" or "a.b.c.d/n" -> { base, size } (the network's first address and its size)
local function ipv4_network(text)
  local addr, bits = tostring(text):match("^([^/]+)/(%d+)$")
  if not addr then addr, bits = tostring(text), "32" end
  local n, len = ipv4_number(addr), tonumber(bits)
  if not n or len > 32 then return nil end
  local size = 2 ^ (32 - len)
  return { base = n - n % size, size = size }
end
M.ipv4_network = ipv4_network

local function blacklisted(ip)
  local deny = M.settings.deny
  if #deny == 0 then return false end
  local n = ipv4_number(ip)
  if not n then return false end
  for _, net in ipairs(deny) do
    if n - n % net.size == net.base then return true end
  end
  return false
end

-- nil, message (and a warning) when ip is blacklisted
local function deny_blacklisted(ip, port, verb)
  if not blacklisted(ip) then return true end
  local key = ip .. ":" .. tostring(tonumber(port))
  local msg = format("%s to %s denied: blacklisted by the controller", verb, key)
  warn_once("blacklist " .. key, msg)
  return nil, msg
end

function M.init(opts)
  local s = M.settings
  s.max_sockets = tonumber(opts.max_sockets) or s.max_sockets
  s.max_send = tonumber(opts.max_send) or s.max_send
  s.max_receive = tonumber(opts.max_receive) or s.max_receive
  s.udp_drop_ratio = tonumber(opts.udp_drop_ratio) or 0
  s.nb_ports = tonumber(opts.nb_ports) or 1
  s.first_port = opts.me and tonumber(opts.me.port)
  s.bind_ports, s.peers, s.allow, s.deny = {}, {}, {}, {}
  for _, p in ipairs(opts.bind_ports or {}) do s.bind_ports[tonumber(p)] = true end
  local function add_node(n)
    local ip, port = n.ip and platform.toip(tostring(n.ip)), tonumber(n.port)
    if ip and port then
      for k = 0, s.nb_ports - 1 do s.peers[ip .. ":" .. (port + k)] = true end
    end
  end
  if opts.addresses then
    -- the simulator's one index of the job's addresses, shared by every node (read only): a
    -- set of its own per node would cost memory in N^2
    s.peers = opts.addresses
  else
    if opts.me then add_node(opts.me) end
    for _, n in ipairs(opts.peers or {}) do add_node(n) end
  end
  for _, a in ipairs(opts.allow or {}) do s.allow[tostring(a)] = true end
  for _, a in ipairs(opts.deny or {}) do
    local net = ipv4_network(a)
    if net then s.deny[#s.deny + 1] = net end
  end
  M.stats = { sockets = 0, sent = 0, received = 0, dropped = 0 }
  warned = {}
  netem.init(opts.net, opts.position, opts.job_nodes, s.nb_ports, opts.net_epoch, opts.addresses)
end

local function may_bind(port)
  local s = M.settings
  port = tonumber(port)
  if not port then return false end
  if s.bind_ports[port] then return true end
  return s.first_port ~= nil and port >= s.first_port and port < s.first_port + s.nb_ports
end

local function bind_denied(port)
  local s = M.settings
  local range = s.first_port and format("%d-%d", s.first_port, s.first_port + s.nb_ports - 1) or "none"
  local msg = format("bind to port %s denied: outside this instance's ports (%s)", tostring(port), range)
  l:warn(msg)
  return nil, msg
end

-- Resolve and check a destination. Returns ip or nil, message.
local function check_dest(host, port, verb)
  local ip, err = platform.toip(tostring(host))
  if not ip then return nil, err end
  local ok, denied = deny_blacklisted(ip, port, verb)
  if not ok then return nil, denied end
  local key = ip .. ":" .. tostring(tonumber(port))
  local s = M.settings
  if s.peers[key] or s.allow[key] or s.allow[ip .. ":*"] then return ip end
  local msg = format("%s to %s denied: not a node of this job", verb, key)
  warn_once("deny " .. key, msg)
  return nil, msg
end

local function count_socket()
  local s = M.settings
  if M.stats.sockets >= s.max_sockets then
    local msg = format("too many sockets: network_max_sockets = %d", s.max_sockets)
    warn_once("sockets", msg)
    return nil, msg
  end
  M.stats.sockets = M.stats.sockets + 1
  return true
end

local function budget(kind, n)
  local s = M.settings
  local used, max = M.stats[kind == "send" and "sent" or "received"], kind == "send" and s.max_send or s.max_receive
  if used + n > max then
    local msg = format("%s budget exhausted: network_max_%s = %d bytes", kind, kind, max)
    warn_once("budget " .. kind, msg)
    return nil, msg
  end
  return true
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
  M.stats.sockets = M.stats.sockets - 1
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
  return raw:getpeername()
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

-- emulated WAN (splaylab.netem) -------------------------------------------------------------
-- A connecting node announces its position in 16 bytes before any data (the accepting side
-- needs it for its own sender-side delays); nothing of it reaches the application.
local PREAMBLE_TAG = "\0SPLAYLAB"
local PREAMBLE_LEN = #PREAMBLE_TAG + 7

local function learn_peer(self, raw, deadline)
  self.learn_peer = nil
  local got = ""
  while #got < PREAMBLE_LEN do
    local data, err, partial = raw:receive(PREAMBLE_LEN - #got)
    got = got .. (data or partial or "")
    local n = math.min(#got, #PREAMBLE_TAG)
    if data or err ~= "timeout" or got:sub(1, n) ~= PREAMBLE_TAG:sub(1, n) then break end
    if not events.wait_socket(raw, "r", deadline) then break end
  end
  local pos = #got == PREAMBLE_LEN and got:sub(1, #PREAMBLE_TAG) == PREAMBLE_TAG
    and tonumber(got:sub(#PREAMBLE_TAG + 1, PREAMBLE_LEN - 1))
  if pos then self.peer = pos elseif got ~= "" then self.stash = got end
end

-- This machine's timers fire late (~0.2 ms in a VM): the delay queues learn by how much (an
-- EWMA, w = 0.125) and wake that much earlier, so that a modelled 20 ms is not 20.5.
local oversleep = 0
local function sleep_until(at)
  local asked = at - platform.now() - oversleep
  if asked <= 0 then return end
  local woke_for = platform.now() + asked
  events.sleep(asked)
  local late = platform.now() - woke_for
  if late < 0 then late = 0 elseif late > 0.002 then late = 0.002 end
  oversleep = 0.875 * oversleep + 0.125 * late
end

local function due(at) return at - platform.now() <= oversleep end

-- The delay queue of one connection: chunks leave in order at their time, held while a
-- partition separates the two nodes; the socket closes once it is empty if the app closed it.
local function flush(self, raw)
  local q = self.outq
  while q[1] do
    local item = q[1]
    if not due(item[1]) then
      sleep_until(item[1])
    elseif netem.partitioned(self.peer) then
      events.sleep(0.05)
    else
      local last, e, partial = raw:send(item[2], item[3] or 1)
      if last then
        table.remove(q, 1)
      elseif e == "timeout" then
        item[3] = (partial or 0) + 1
        events.wait_socket(raw, "w", nil)
      else
        for k = #q, 1, -1 do q[k] = nil end   -- the connection broke: the rest is lost
      end
    end
  end
  self.flusher = nil
  if self.drain then
    self.drain:close()
    self.drain = nil
    M.stats.sockets = M.stats.sockets - 1
  end
end

local function queue_stream(self, raw, chunk)
  local now, peer = platform.now(), self.peer
  local at = now + netem.serialize(#chunk) + netem.delay(peer) + netem.stream_penalty(#chunk, peer)
  if self.last_at and at < self.last_at then at = self.last_at end   -- a stream keeps its order
  self.last_at = at
  local q = self.outq
  if not q then q = {}; self.outq = q end
  q[#q + 1] = { at, chunk }
  if not self.flusher then self.flusher = events.thread(function() flush(self, raw) end) end
end

-- Datagrams: each leaves at its own time (jitter may reorder them, as on the Internet).
local function flush_datagrams(self, raw)
  local q = self.dgq
  while q[1] do
    local item = q[1]
    if not due(item[1]) then
      sleep_until(item[1])
    else
      table.remove(q, 1)
      if item[3] then raw:sendto(item[2], item[3], item[4]) else raw:send(item[2]) end
    end
  end
  self.dgflusher = nil
end

-- nil: no emulation for this destination; true: the datagram is gone (lost, partitioned,
-- or queued to leave later)
local function emulate_datagram(self, raw, data, ip, port)
  local dest_ip, dest_port = ip, port
  if not dest_ip and self.peer then dest_ip, dest_port = self.peer[1], self.peer[2] end
  local pos = dest_ip and netem.position_of(dest_ip, dest_port)
  if not pos then return nil end
  if netem.partitioned(pos) or netem.datagram_lost(#data) then
    M.stats.dropped = M.stats.dropped + 1
    return true
  end
  local delay = netem.serialize(#data) + netem.delay(pos)
  if delay <= 0 then return nil end
  local q = self.dgq
  if not q then q = {}; self.dgq = q end
  local at = platform.now() + delay
  local i = #q + 1
  while i > 1 and q[i - 1][1] > at do i = i - 1 end
  table.insert(q, i, { at, data, ip, port })
  if not self.dgflusher then self.dgflusher = events.thread(function() flush_datagrams(self, raw) end) end
  return true
end

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
  return raw:bind(host == "localhost" and "127.0.0.1" or host, port)
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
      events.sleep(0.05)
      if not RAW[self] then return nil, "closed" end
    end
  end
  local ok
  ok, err = raw:connect(ip, port)
  while not ok do
    if err == "already connected" then break end
    if err ~= "timeout" and err ~= "Operation already in progress" then return nil, err end
    if not events.wait_socket(raw, "w", deadline) then
      if not RAW[self] then return nil, "closed" end
      return nil, "timeout"
    end
    ok, err = raw:connect(ip, port)
  end
  self.kind = "client"
  if peer then
    self.peer = peer
    local rtt = netem.rtt(peer)
    if rtt > 0 then events.sleep(rtt) end
    -- tell the accepting node who we are (sender-side delays need the peer's position)
    raw:send(PREAMBLE_TAG .. format("%06d\n", netem.me))
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
  if self.learn_peer then learn_peer(self, raw, deadline) end
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
    M.stats.sent = M.stats.sent + (j - i + 1)
    queue_stream(self, raw, data:sub(i, j))
    return j
  end
  local pos = i
  while true do
    local last, e, partial = raw:send(data, pos, j)
    local upto = last or partial or (pos - 1)
    M.stats.sent = M.stats.sent + (upto - pos + 1)
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
  if self.learn_peer then learn_peer(self, raw, deadline) end
  local stash = self.stash
  if stash then   -- bytes read while looking for a preamble that was not there
    self.stash = nil
    if pattern == "*l" then
      local eol = stash:find("\n", 1, true)
      if eol then
        if eol < #stash then self.stash = stash:sub(eol + 1) end
        return prefix .. (stash:sub(1, eol - 1):gsub("\r", ""))
      end
    elseif size and #stash >= size then
      if size < #stash then self.stash = stash:sub(size + 1) end
      return prefix .. stash:sub(1, size)
    end
    got[1], ngot = stash, #stash
  end
  while true do
    if size and size - ngot <= 0 then return prefix .. table.concat(got) end
    local left = M.settings.max_receive - M.stats.received
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
      M.stats.received = M.stats.received + #chunk
    end
    if M.stats.received >= M.settings.max_receive and not data then
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

-- udp ------------------------------------------------------------------------------------------
local udp = setmetatable({}, { __index = common })
local udp_mt = { __index = udp, __tostring = function(o) return "udp{" .. o.kind .. "}: splay" end }

local function wrap_udp(raw)
  raw:settimeout(0)
  local obj = setmetatable({ kind = "unconnected", timeout = nil }, udp_mt)
  RAW[obj] = raw
  return obj
end

function udp:setsockname(host, port)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  if not may_bind(port) then return bind_denied(port) end
  return raw:setsockname(host == "localhost" and "127.0.0.1" or host, port)
end

function udp:setpeername(host, port)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  if host == "*" then self.peer = nil; self.kind = "unconnected"; return raw:setpeername("*") end
  local ip, err = check_dest(host, port, "connect")
  if not ip then return nil, err end
  self.peer = { ip, tonumber(port) }
  self.kind = "connected"
  return raw:setpeername(ip, port)
end

local function udp_out(self, data, ip, port)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  data = tostring(data)
  local ok, err = budget("send", #data)
  if not ok then return nil, err end
  if not INTERNAL[self] and trace.enabled() then
    local to_ip, to_port = ip, port
    if not to_ip and self.peer then to_ip, to_port = self.peer[1], self.peer[2] end
    traced(self, "sendto", to_ip and trace.peer(to_ip, to_port) or 0, #data, "ok", platform.now())
  end
  M.stats.sent = M.stats.sent + #data
  local ratio = M.settings.udp_drop_ratio
  if ratio > 0 and random() < ratio then
    M.stats.dropped = M.stats.dropped + 1
    return #data
  end
  if netem.active and emulate_datagram(self, raw, data, ip, port) then return #data end
  local deadline = deadline_of(self)
  while true do
    local n, e
    if ip then n, e = raw:sendto(data, ip, port) else n, e = raw:send(data) end
    if n then return n end
    if e ~= "timeout" then return nil, e end
    if not events.wait_socket(raw, "w", deadline) then return nil, RAW[self] and "timeout" or "closed" end
  end
end

function udp:send(data) return udp_out(self, data) end

function udp:sendto(data, host, port)
  local ip, err
  local replies = self.replies
  if replies and replies[tostring(host) .. ":" .. tostring(tonumber(port))] then
    ip = host                    -- a reply to a peer that sent us a datagram
    local ok, denied = deny_blacklisted(ip, port, "send")
    if not ok then return nil, denied end
  else
    ip, err = check_dest(host, port, "send")
    if not ip then return nil, err end
  end
  return udp_out(self, data, ip, tonumber(port))
end

local function udp_in(self, size, from)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  local deadline = deadline_of(self)
  while true do
    if M.stats.received >= M.settings.max_receive then return budget("receive", 1) end
    local data, a, b
    if from then data, a, b = raw:receivefrom(size) else data, a = raw:receive(size) end
    if data and M.stats.received + #data > M.settings.max_receive then
      return budget("receive", #data)   -- a datagram beyond the budget is dropped
    end
    if data then
      M.stats.received = M.stats.received + #data
      if from then
        -- remember the sender so that sendto can answer it (ephemeral client ports)
        local replies = self.replies
        if not replies or self.nreplies >= MAX_REPLY_PEERS then
          replies = {}; self.replies = replies; self.nreplies = 0
        end
        local key = a .. ":" .. tostring(b)
        if not replies[key] then replies[key] = true; self.nreplies = self.nreplies + 1 end
      end
      return data, a, b
    end
    if a ~= "timeout" then return nil, a end
    if not events.wait_socket(raw, "r", deadline) then return nil, RAW[self] and "timeout" or "closed" end
  end
end

function udp:receive(size) return udp_in(self, size, false) end
function udp:receivefrom(size) return udp_in(self, size, true) end

-- the module table given to student code -----------------------------------------------------
function M.tcp()
  local ok, err = count_socket()
  if not ok then return nil, err end
  local raw, e = platform.tcp()
  if not raw then M.stats.sockets = M.stats.sockets - 1; return nil, e end
  return wrap_tcp(raw, "master")
end

function M.udp()
  local ok, err = count_socket()
  if not ok then return nil, err end
  local raw, e = platform.udp()
  if not raw then M.stats.sockets = M.stats.sockets - 1; return nil, e end
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

-- newtry / protect: LuaSocket's error helpers, in plain Lua.
function M.newtry(finalizer)
  return function(...)
    local ok = ...
    if ok then return ... end
    if finalizer then pcall(finalizer) end
    error({ socket_error = (select(2, ...)) }, 0)
  end
end

function M.protect(f)
  return function(...)
    local res = { pcall(f, ...) }
    if res[1] then return unpack(res, 2) end
    local e = res[2]
    if type(e) == "table" and e.socket_error then return nil, e.socket_error end
    error(e, 0)
  end
end

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
