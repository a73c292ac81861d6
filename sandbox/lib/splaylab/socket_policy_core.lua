--[[
splaylab.socket_policy_core - what splaylab.socket lets a node do with the network: the ports it may
bind, the addresses it may reach, the sockets it may hold and the bytes it may move.

Runtime side only (splaylab.socket; never given to student code). A node's policy is an object
(splaylab.socket_policy: `require "splaylab.socket_policy"` is the node's), its methods one set
for every node of a simulation (splaylab.sim.world's PROCESS_WIDE); its state is the object's:
settings, stats, the warnings given.
  core.new(platform, log) -> policy       a node's, over its platform and logger
  policy:init(opts)                       socket.init's options (me, peers, addresses, nb_ports,
                                          bind_ports, allow, deny, max_sockets, max_send,
                                          max_receive, udp_drop_ratio); resets stats and warnings
  policy.settings, policy.stats           the tables socket.settings and socket.stats are
                                          (stats = {sockets, sent, received, dropped}, a new
                                          table at each init)
  policy:may_bind(port) -> bool           policy:bind_denied(port) -> nil, message
  policy:bind_host(host) -> host          the address a bind to `host` really uses (below)
  policy.is_loopback(ip) -> bool          a 127.x.y.z address
  policy.settings.own_ip                  me.ip when it is a loopback address, else nil
  policy:check_dest(host, port, verb) -> ip | nil, message     resolve, then the rules below
  policy:deny_blacklisted(ip, port, verb) -> true | nil, message
  policy:count_socket() -> true | nil, message                 one more open socket
  policy:budget("send" | "receive", n) -> true | nil, message  may n more bytes move?
  policy.ipv4_network(text) -> {base, size} | nil              "a.b.c.d" or "a.b.c.d/n"
  policy:route(ip, port) -> ip          where the kernel is told to send (the shortcut below)
  policy:unroute(ip, port) -> ip        a sender's address as the app sees it (its job address)
  policy:own_job_ip(host) -> bool       host is this node's job.me.ip (not loopback)
  policy:relay_door(ip, port) -> port | nil   the daemon's relay door when ip:port is a node
                                        reached through the node relay (job.json "relay")
  policy:relay_udp(ip, port) -> port | nil    the same for datagrams (its UDP door)

Rules (limits from job.json "limits", see docs/architecture.md):
  bind: only this instance's ports: me.port .. me.port + nb_ports - 1 and bind_ports.
    A node on a loopback address of its own (docs/decisions.md, "One address per node") binds
    "*", "0.0.0.0", "localhost" and 127.0.0.1 on that address, and its outgoing sockets leave
    from it (splaylab.socket binds them first), so peers see its job.me.ip as the source.
  connect / sendto / setpeername: only the job's nodes (each node's port range) and `allow`;
    a UDP socket may also answer (sendto) any address it received a datagram from;
    denied: nil, "connect to IP:PORT denied: not a node of this job" plus a warning record.
  deny (job.json limits.connect_deny: the controller's blacklist) wins over everything, the
    job's nodes, `allow` and UDP replies included: nil, "connect to IP:PORT denied: blacklisted
    by the controller" (sendto: "send to ...") plus a warning record. IPv4 addresses and CIDR
    networks; other entries (IPv6) are ignored, as the runtime has no IPv6.
  sockets: at most max_sockets open at once ("too many sockets: network_max_sockets = N").
  bytes: max_send / max_receive over the node's life ("send budget exhausted:
    network_max_send = N bytes"); splaylab.socket never hands out more than the budget's bytes
    (a read is cut there, a datagram that does not fit is dropped).
Same-machine shortcut (issue 24; opts.local_nodes, job.json "local_nodes": the job's nodes
  this node's daemon hosts, itself included): a daemon behind a router without port forwarding
  is listed at the router's address, where not even its own nodes can connect. Traffic to a
  local node's address (every port of its range) is sent to 127.0.0.1 on the same port
  (route), after every rule above was checked against the job address; a datagram from
  127.0.0.1 on a local node's port is handed to the app as from that node's job address
  (unroute), so replies and receivefrom look as they do between machines. A TCP peer's
  getpeername stays 127.0.0.1 (its source port is ephemeral). Nodes on loopback addresses of
  their own (the controller's host) are not routed: they already reach each other.
Node relay (issue 24; opts.relay = job.json "relay" {port, peers}, opts.job_id): the peers'
  nodes (every port of each range) are those whose daemon this daemon cannot reach; a TCP
  connect to one goes to the daemon's door 127.0.0.1:relay.port (splaylab.socket_relay), after
  the same rules as above; a datagram to one goes to its UDP door (relay.udp_port) as
  "JOB IP:PORT\n" + data, and one from that door arrives as "IP:PORT\n" + data (the sender's
  job address; splaylab.socket_udp unwraps both). A sender that came through the door joins
  the relayed set, so an answer to it (an ephemeral port: splay.urpc's client socket) goes
  back the same way; the relay lets such answers through for 60 s, as a NAT would.
Warnings are records "[splay.socket] ..."; a refused destination (or budget, or the socket
limit) is warned about once per init, a refused bind every time.
Limits: IPv4 only; names are resolved (platform.toip) before the check, never restricted.
]]
local C = { _NAME = "splaylab.socket_policy_core", _VERSION = "0.2" }
local Policy = {}
Policy.__index = Policy
C.Policy = Policy

local tostring, tonumber, ipairs, type, setmetatable = tostring, tonumber, ipairs, type, setmetatable
local format = string.format

local function default_settings()
  return {
    max_sockets = 256,
    max_send = 1024 * 1024 * 1024,
    max_receive = 1024 * 1024 * 1024,
    udp_drop_ratio = 0,
    nb_ports = 1,
    first_port = nil,     -- me.port
    own_ip = nil,         -- me.ip when it is a loopback address (127.x.y.z), else nil
    bind_ports = {},      -- set: port -> true
    peers = {},           -- set: "ip:port" -> true (every port of every node)
    allow = {},           -- set: "ip:port" | "ip:*" -> true
    deny = {},            -- list of { base, size }: IPv4 networks (base address as a number)
    me_ip = nil,          -- job.me.ip
    local_at = {},        -- set: "ip:port" of this daemon's nodes (every port), sent over 127.0.0.1
    local_port = {},      -- port -> the job ip of this daemon's node holding that port
    relayed = {},         -- set: "ip:port" of nodes reached through the node relay
    relay_port = nil,     -- the daemon's relay door (127.0.0.1)
    relay_udp_port = nil, -- its door for datagrams
    job_id = nil,
  }
end

--- A node's policy, over its platform (toip) and its logger (the warnings).
function C.new(platform, log)
  return setmetatable({ platform = platform, log = log, settings = default_settings(),
    stats = { sockets = 0, sent = 0, received = 0, dropped = 0 }, warned = {} }, Policy)
end

local function warn_once(self, key, msg)
  local warned = self.warned
  if not warned[key] then warned[key] = true; self.log:warn(msg) end
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
Policy.ipv4_network = ipv4_network

local function is_loopback(ip)
  return tostring(ip):match("^127%.%d+%.%d+%.%d+$") ~= nil
end
Policy.is_loopback = is_loopback

local function blacklisted(self, ip)
  local deny = self.settings.deny
  if #deny == 0 then return false end
  local n = ipv4_number(ip)
  if not n then return false end
  for _, net in ipairs(deny) do
    if n - n % net.size == net.base then return true end
  end
  return false
end

-- nil, message (and a warning) when ip is blacklisted
function Policy:deny_blacklisted(ip, port, verb)
  if not blacklisted(self, ip) then return true end
  local key = ip .. ":" .. tostring(tonumber(port))
  local msg = format("%s to %s denied: blacklisted by the controller", verb, key)
  warn_once(self, "blacklist " .. key, msg)
  return nil, msg
end

function Policy:init(opts)
  local s = self.settings
  s.max_sockets = tonumber(opts.max_sockets) or s.max_sockets
  s.max_send = tonumber(opts.max_send) or s.max_send
  s.max_receive = tonumber(opts.max_receive) or s.max_receive
  s.udp_drop_ratio = tonumber(opts.udp_drop_ratio) or 0
  s.nb_ports = tonumber(opts.nb_ports) or 1
  s.first_port = opts.me and tonumber(opts.me.port)
  local me_ip = opts.me and opts.me.ip and tostring(opts.me.ip)
  s.own_ip = me_ip and is_loopback(me_ip) and me_ip or nil
  s.me_ip = me_ip
  s.bind_ports, s.peers, s.allow, s.deny, s.local_at, s.local_port = {}, {}, {}, {}, {}, {}
  s.relayed, s.job_id = {}, opts.job_id
  local relay = type(opts.relay) == "table" and opts.relay or {}
  s.relay_port = tonumber(relay.port)
  s.relay_udp_port = s.relay_port and tonumber(relay.udp_port)
  for _, n in ipairs(s.relay_port and relay.peers or {}) do
    local ip, port = n.ip and tostring(n.ip), tonumber(n.port)
    if ip and port then
      for k = 0, s.nb_ports - 1 do s.relayed[ip .. ":" .. (port + k)] = true end
    end
  end
  for _, n in ipairs(opts.local_nodes or {}) do
    local ip, port = n.ip and tostring(n.ip), tonumber(n.port)
    if ip and port and not is_loopback(ip) and ipv4_number(ip) then
      for k = 0, s.nb_ports - 1 do
        s.local_at[ip .. ":" .. (port + k)] = true
        s.local_port[port + k] = ip
      end
    end
  end
  for _, p in ipairs(opts.bind_ports or {}) do s.bind_ports[tonumber(p)] = true end
  local platform = self.platform
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
  self.stats = { sockets = 0, sent = 0, received = 0, dropped = 0 }
  self.warned = {}
end

function Policy:may_bind(port)
  local s = self.settings
  port = tonumber(port)
  if not port then return false end
  if s.bind_ports[port] then return true end
  return s.first_port ~= nil and port >= s.first_port and port < s.first_port + s.nb_ports
end

-- On a loopback address of its own, "the local host" of a node is that address: a server
-- bound there is the one its peers reach at job.me.
local LOCAL_HOST = { ["*"] = true, ["0.0.0.0"] = true, localhost = true, ["127.0.0.1"] = true }
function Policy:bind_host(host)
  local own = self.settings.own_ip
  if own and LOCAL_HOST[host] then return own end
  return host == "localhost" and "127.0.0.1" or host
end

function Policy:bind_denied(port)
  local s = self.settings
  local range = s.first_port and format("%d-%d", s.first_port, s.first_port + s.nb_ports - 1) or "none"
  local msg = format("bind to port %s denied: outside this instance's ports (%s)", tostring(port), range)
  self.log:warn(msg)
  return nil, msg
end

-- Resolve and check a destination. Returns ip or nil, message.
function Policy:check_dest(host, port, verb)
  local ip, err = self.platform.toip(tostring(host))
  if not ip then return nil, err end
  local ok, denied = self:deny_blacklisted(ip, port, verb)
  if not ok then return nil, denied end
  local key = ip .. ":" .. tostring(tonumber(port))
  local s = self.settings
  if s.peers[key] or s.allow[key] or s.allow[ip .. ":*"] then return ip end
  -- a node on a loopback address of its own: its local host (127.0.0.1, localhost) is that
  -- address, where its own servers listen (bind_host); a message still names the host given
  local own = s.own_ip
  if own and LOCAL_HOST[tostring(host)] and s.peers[own .. ":" .. tostring(tonumber(port))] then return own end
  local msg = format("%s to %s denied: not a node of this job", verb, key)
  warn_once(self, "deny " .. key, msg)
  return nil, msg
end

-- The same-machine shortcut (see the header): the address the kernel is given for a job
-- address, and the job address a datagram's loopback sender stands for.
function Policy:route(ip, port)
  if self.settings.local_at[tostring(ip) .. ":" .. tostring(tonumber(port))] then return "127.0.0.1" end
  return ip
end

function Policy:relay_door(ip, port)
  local s = self.settings
  if s.relay_port and s.relayed[tostring(ip) .. ":" .. tostring(tonumber(port))] then return s.relay_port end
  return nil
end

function Policy:relay_udp(ip, port)
  local s = self.settings
  if s.relay_udp_port and s.relayed[tostring(ip) .. ":" .. tostring(tonumber(port))] then return s.relay_udp_port end
  return nil
end

function Policy:unroute(ip, port)
  if ip == "127.0.0.1" then return self.settings.local_port[tonumber(port)] or ip end
  return ip
end

-- A bind to the node's own job address that the kernel refuses (the address is a router's)
-- is retried on every interface: only then do the node's peers on this machine reach it.
function Policy:own_job_ip(host)
  local me = self.settings.me_ip
  return me ~= nil and host == me and not is_loopback(me)
end

function Policy:count_socket()
  local s, stats = self.settings, self.stats
  if stats.sockets >= s.max_sockets then
    local msg = format("too many sockets: network_max_sockets = %d", s.max_sockets)
    warn_once(self, "sockets", msg)
    return nil, msg
  end
  stats.sockets = stats.sockets + 1
  return true
end

function Policy:budget(kind, n)
  local s = self.settings
  local used, max = self.stats[kind == "send" and "sent" or "received"], kind == "send" and s.max_send or s.max_receive
  if used + n > max then
    local msg = format("%s budget exhausted: network_max_%s = %d bytes", kind, kind, max)
    warn_once(self, "budget " .. kind, msg)
    return nil, msg
  end
  return true
end

return C
