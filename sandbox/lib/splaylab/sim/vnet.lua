--[[
splaylab.sim.vnet - the simulator's transport: TCP streams and UDP datagrams between the nodes
of one process, with LuaSocket's non-blocking API as splaylab.socket uses it (every operation
returns at once: nil, "timeout" where a real socket would block).

Delivery is immediate in virtual time: the emulated WAN (delay, loss, bandwidth, partitions)
is applied above this, by splaylab.socket and splaylab.netem, on the virtual clock, as on a
live node. Writes never block (buffers are unbounded). A node's sockets are closed when the
node ends (`net:close_owner(owner)`): its peers read "closed".

Readiness: `sock:readable()`, `sock:writable()`; when a socket becomes readable the net calls
`on_ready(sock.owner, sock)` (the scheduler wakes the owner if it waits on that socket), also
when its own node closes it (closed reads as readable; the scheduler's poll looks only at the
sockets it was told of).

Usage: local net = vnet.new(on_ready [, post]); local s = net:tcp(owner, ip); s:bind(ip, port) ...

Message boxes (the fast path of splay.rpc / splay.urpc, splaylab.rpc_fast; docs/simulation.md):
a box is a queue of Lua values a node's thread waits on as on a socket (readable(), an id in
creation order); `put` wakes its owner. Two boxes made by `net:link` are the two ends of one
rpc connection: when one end closes (its node ended, or the app's pool closed it) the other
reads end-of-stream. `net:serve(kind, ip, port, inbox)` makes a box the inbox of the
rpc ("tcp") or urpc ("udp") server bound at ip:port; `net:server_of(kind, ip, port)` finds
it while the socket bound there is still its owner's. `net.post(t, fn, arg)` runs fn(arg) at
virtual time t (the kernel's queue): a message in flight.
]]
local M = { _NAME = "splaylab.sim.vnet", _VERSION = "0.1" }

local setmetatable, tostring, tonumber, pairs, ipairs = setmetatable, tostring, tonumber, pairs, ipairs
local find, sub = string.find, string.sub

local Net = {}
Net.__index = Net

function M.new(on_ready, post)
  return setmetatable({ on_ready = on_ready or function() end, post = post, tcp_listen = {}, udp_bound = {},
    ephemeral = {}, owned = {}, created = 0, servers = { tcp = {}, udp = {} } }, Net)
end

local function key(ip, port) return ip .. ":" .. tostring(port) end

-- Every socket gets a creation number `id`: the simulator orders ready sockets and closings by
-- it, never by `pairs` (whose order follows addresses).
function Net:_own(owner, s)
  self.created = self.created + 1
  s.id = self.created
  local list = self.owned[owner]
  if not list then list = {}; self.owned[owner] = list end
  list[s] = true
end

function Net:_port(ip)
  local p = (self.ephemeral[ip] or 49151) + 1
  while self.tcp_listen[key(ip, p)] or self.udp_bound[key(ip, p)] do p = p + 1 end
  self.ephemeral[ip] = p
  return p
end

function Net:close_owner(owner)
  local list = self.owned[owner]
  if not list then return end
  self.owned[owner] = nil
  local socks = {}
  for s in pairs(list) do socks[#socks + 1] = s end
  table.sort(socks, function(a, b) return a.id < b.id end)
  self.ending = owner   -- boxes closed now are closed by their node's end
  for _, s in ipairs(socks) do s:close() end
  self.ending = nil
end

-- TCP ---------------------------------------------------------------------------------------
local Tcp = {}
Tcp.__index = Tcp

function Net:tcp(owner, ip)
  local s = setmetatable({ net = self, owner = owner, ip = ip, state = "fresh", buf = "" }, Tcp)
  self:_own(owner, s)
  return s
end

function Tcp.settimeout() return 1 end
function Tcp.setoption() return 1 end
function Tcp:getsockname() return self.ip, self.port end
function Tcp:getpeername()
  if not self.peer then return nil, "closed" end
  return self.peer.ip, self.peer.port
end

function Tcp:bind(ip, port)
  port = tonumber(port) or 0
  if ip == "*" or ip == "0.0.0.0" then ip = self.ip end
  if port == 0 then port = self.net:_port(ip) end
  if self.net.tcp_listen[key(ip, port)] then return nil, "address already in use" end
  self.ip, self.port, self.state = ip, port, "bound"
  return 1
end

function Tcp:listen()
  if self.state ~= "bound" then return nil, "not bound" end
  self.state, self.backlog = "listening", {}
  self.net.tcp_listen[key(self.ip, self.port)] = self
  return 1
end

function Tcp:accept()
  if self.state ~= "listening" then return nil, "closed" end
  local c = table.remove(self.backlog, 1)
  if not c then return nil, "timeout" end
  return c
end

function Tcp:connect(ip, port)
  if self.state == "connected" then return nil, "already connected" end
  if self.state == "closed" then return nil, "closed" end
  local l = self.net.tcp_listen[key(tostring(ip), tonumber(port))]
  if not l then return nil, "connection refused" end
  if not self.port then self.port = self.net:_port(self.ip) end
  local other = setmetatable({ net = self.net, owner = l.owner, ip = l.ip, port = l.port,
    state = "connected", buf = "", peer = self }, Tcp)
  self.net:_own(l.owner, other)
  self.peer, self.state = other, "connected"
  local backlog = l.backlog
  backlog[#backlog + 1] = other
  self.net.on_ready(l.owner, l)
  return 1
end

function Tcp:send(data, i, j)
  if self.state ~= "connected" or not self.peer then return nil, "closed", (i or 1) - 1 end
  i, j = i or 1, j or #data
  local piece = (i == 1 and j == #data) and data or sub(data, i, j)
  local p = self.peer
  if p.state == "connected" then
    p.buf = p.buf .. piece
    self.net.on_ready(p.owner, p)
  end
  return j
end

function Tcp:readable()
  if self.state == "listening" then return #self.backlog > 0 end
  return #self.buf > 0 or self.state ~= "connected" or self.eof == true
end

function Tcp:writable() return self.state == "connected" end

function Tcp:receive(pattern, prefix)
  prefix = prefix or ""
  pattern = pattern or "*l"
  local buf = self.buf
  local ended = self.eof or self.state ~= "connected"
  if pattern == "*l" then
    local nl = find(buf, "\n", 1, true)
    if nl then
      self.buf = sub(buf, nl + 1)
      return prefix .. (sub(buf, 1, nl - 1):gsub("\r", ""))
    end
    self.buf = ""
    return nil, ended and "closed" or "timeout", prefix .. buf
  elseif pattern == "*a" then
    self.buf = ""
    if ended then return prefix .. buf end
    return nil, "timeout", prefix .. buf
  end
  local n = tonumber(pattern)
  if #buf >= n then
    self.buf = sub(buf, n + 1)
    return prefix .. sub(buf, 1, n)
  end
  self.buf = ""
  return nil, ended and "closed" or "timeout", prefix .. buf
end

function Tcp:shutdown()
  local p = self.peer
  if p then p.eof = true; self.net.on_ready(p.owner, p) end
  return 1
end

function Tcp:close()
  if self.state == "closed" then return 1 end
  local net = self.net
  if self.state == "listening" then net.tcp_listen[key(self.ip, self.port)] = nil end
  self.state = "closed"
  net.on_ready(self.owner, self)   -- closed reads as readable: a thread of its node may wait on it
  local p = self.peer
  if p and p.state == "connected" then
    p.eof = true
    net.on_ready(p.owner, p)
  end
  local list = net.owned[self.owner]
  if list then list[self] = nil end
  return 1
end

-- UDP ---------------------------------------------------------------------------------------
local Udp = {}
Udp.__index = Udp

function Net:udp(owner, ip)
  local s = setmetatable({ net = self, owner = owner, ip = ip, queue = {}, head = 1, tail = 0 }, Udp)
  self:_own(owner, s)
  return s
end

Udp.settimeout, Udp.setoption = Tcp.settimeout, Tcp.setoption
function Udp:getsockname() return self.ip, self.port end

function Udp:setsockname(ip, port)
  port = tonumber(port) or 0
  if ip == "*" or ip == "0.0.0.0" then ip = self.ip end
  if port == 0 then port = self.net:_port(ip) end
  if self.net.udp_bound[key(ip, port)] then return nil, "address already in use" end
  self.ip, self.port = ip, port
  self.net.udp_bound[key(ip, port)] = self
  return 1
end

function Udp:setpeername(ip, port)
  if ip == "*" then self.peer_ip, self.peer_port = nil, nil; return 1 end
  self.peer_ip, self.peer_port = tostring(ip), tonumber(port)
  return 1
end

function Udp:getpeername()
  if not self.peer_ip then return nil, "closed" end
  return self.peer_ip, self.peer_port
end

function Udp:sendto(data, ip, port)
  if self.closed then return nil, "closed" end
  if not self.port then self:setsockname(self.ip, 0) end
  local dest = self.net.udp_bound[key(tostring(ip), tonumber(port))]
  if dest and not dest.closed then  -- nobody bound there: the datagram is lost, as on a LAN
    dest.tail = dest.tail + 1
    dest.queue[dest.tail] = { data, self.ip, self.port }
    self.net.on_ready(dest.owner, dest)
  end
  return #data
end

function Udp:send(data)
  if not self.peer_ip then return nil, "not connected" end
  return self:sendto(data, self.peer_ip, self.peer_port)
end

function Udp:readable() return self.head <= self.tail or self.closed == true end
function Udp:writable() return not self.closed end

function Udp:receivefrom(size)
  if self.closed then return nil, "closed" end
  if self.head > self.tail then return nil, "timeout" end
  local d = self.queue[self.head]
  self.queue[self.head] = nil
  self.head = self.head + 1
  local data = d[1]
  if size and #data > size then data = sub(data, 1, size) end
  return data, d[2], d[3]
end

function Udp:receive(size)
  local data, err = self:receivefrom(size)
  return data, err
end

function Udp:close()
  if self.closed then return 1 end
  self.closed = true
  self.net.on_ready(self.owner, self)   -- closed reads as readable (as Tcp:close)
  if self.port then self.net.udp_bound[key(self.ip, self.port)] = nil end
  local list = self.net.owned[self.owner]
  if list then list[self] = nil end
  return 1
end

-- message boxes -------------------------------------------------------------------------------
local Box = {}
Box.__index = Box

-- on_close(box): called once when the box closes.
function Net:box(owner, on_close)
  local b = setmetatable({ net = self, owner = owner, head = 1, tail = 0, state = "open", in_flight = 0,
    on_close = on_close }, Box)
  self:_own(owner, b)
  return b
end

-- The two ends of one connection: a's owner holds a, b's owner b.
function Net:link(a_owner, b_owner, a_on_close, b_on_close)
  local a, b = self:box(a_owner, a_on_close), self:box(b_owner, b_on_close)
  a.peer, b.peer = b, a
  return a, b
end

function Box:readable() return self.head <= self.tail or self.state ~= "open" end
function Box:writable() return self.state == "open" end

-- false when the box was closed (what the other end sent before it closed still arrives)
function Box:put(item)
  if self.state == "closed" then return false end
  local tail = self.tail + 1
  self.tail = tail
  self[tail] = item
  self.net.on_ready(self.owner, self)
  return true
end

function Box:take()
  local h = self.head
  if h > self.tail then return nil end
  local item = self[h]
  self[h] = nil
  self.head = h + 1
  return item
end

local function eof_to_peer(self)
  local p = self.peer
  if p and p.state == "open" then
    p.state = "eof"
    self.net.on_ready(p.owner, p)
  end
end

-- Closed by its owner, or by its node's end (then `ended` is true: what it still had in
-- flight is lost). The other end reads end-of-stream after what this end sent before
-- (in_flight: messages on their way, counted by the sender; `delivered` when one arrives).
function Box:close()
  if self.state == "closed" then return 1 end
  local net = self.net
  self.state = "closed"
  net.on_ready(self.owner, self)   -- closed reads as readable (as Tcp:close)
  self.ended = net.ending == self.owner
  local list = net.owned[self.owner]
  if list then list[self] = nil end
  if self.in_flight > 0 and not self.ended then self.eof_pending = true else eof_to_peer(self) end
  if self.on_close then self.on_close(self) end
  return 1
end

function Box:delivered()
  local n = self.in_flight - 1
  self.in_flight = n
  if n == 0 and self.eof_pending then
    self.eof_pending = nil
    eof_to_peer(self)
  end
end

function Net:serve(kind, ip, port, inbox)
  self.servers[kind][key(ip, port)] = inbox
  inbox.bound = { kind = kind, ip = ip, port = tonumber(port) }
end

-- The inbox of the server at ip:port, while the socket bound there belongs to its node;
-- else false when a socket of the app is bound there, nil when nothing is.
function Net:server_of(kind, ip, port)
  local k = key(tostring(ip), tonumber(port))
  local sock
  if kind == "tcp" then sock = self.tcp_listen[k] else sock = self.udp_bound[k] end
  if not sock or sock.closed then return nil end
  local inbox = self.servers[kind][k]
  if inbox and inbox.state == "open" and inbox.owner == sock.owner then return inbox end
  return false
end

return M
