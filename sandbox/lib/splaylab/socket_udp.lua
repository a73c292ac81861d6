--[[
splaylab.socket_udp - the UDP object of splaylab.socket (`socket.udp()`): LuaSocket's udp
methods on a non-blocking transport socket, under splaylab.socket_policy's rules.

Runtime side only. splaylab.socket builds it once, handing over its private registries (they
stay out of student code's reach: upvalues of the methods, as in splaylab.socket):
  local wrap_udp = require("splaylab.socket_udp").build{raw = RAW, internal = INTERNAL,
    common = common, traced = traced, deadline_of = deadline_of}
  wrap_udp(raw) -> wrapper       methods setsockname, setpeername, send, sendto, receive,
                                 receivefrom, and splaylab.socket's common ones (settimeout,
                                 close, getsockname, getpeername, setoption, getfd, dirty)
Each build has its own methods and state (nothing at module level).
Rules: setsockname only on this instance's ports; setpeername / sendto only to the job's nodes
and `allow`, or (sendto) back to an address receivefrom got a datagram from (the blacklist
still wins); a datagram counts in the send / receive budgets, one that does not fit the receive
budget is dropped; a sent datagram is dropped with probability udp_drop_ratio, and goes through
the emulated WAN (splaylab.socket_netem) when it is on.
Limits: a reply is allowed by the sender's address alone; each socket remembers up to
MAX_REPLY_PEERS senders, then forgets them all at once (they must be the job's nodes again).
]]
local platform = require "splaylab.platform"
local events = require "splaylab.events"
local netem = require "splaylab.netem"
local trace = require "splaylab.trace"
local policy = require "splaylab.socket_policy"
local sn = require "splaylab.socket_netem"

local M = { _NAME = "splaylab.socket_udp", _VERSION = "0.1" }

local tostring, tonumber, setmetatable, random = tostring, tonumber, setmetatable, math.random

local MAX_REPLY_PEERS = 4096   -- senders a UDP socket may answer (forgotten in bulk beyond)

function M.build(ctx)
  local RAW, INTERNAL, common, traced, deadline_of = ctx.raw, ctx.internal, ctx.common, ctx.traced, ctx.deadline_of

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
    if not policy:may_bind(port) then return policy:bind_denied(port) end
    local ok, err = raw:setsockname(policy:bind_host(host), port)
    if not ok and policy:own_job_ip(host) then ok, err = raw:setsockname("*", port) end
    if not ok then return nil, err end
    self.bound = true
    return ok
  end

  -- A node on a loopback address of its own sends to loopback peers from it (else the kernel
  -- picks 127.0.0.1 and the receiver's receivefrom would not name the node); a failed bind
  -- changes nothing.
  local function own_source(self, raw, ip)
    local own = policy.settings.own_ip
    if own and not self.bound and policy.is_loopback(ip) then
      self.bound = raw:setsockname(own, 0) and true
    end
  end

  function udp:setpeername(host, port)
    local raw = RAW[self]
    if not raw then return nil, "closed" end
    if host == "*" then self.peer = nil; self.kind = "unconnected"; return raw:setpeername("*") end
    local ip, err = policy:check_dest(host, port, "connect")
    if not ip then return nil, err end
    self.peer = { ip, tonumber(port) }
    self.kind = "connected"
    if policy:relay_udp(ip, port) then return 1 end   -- sent through the relay's door (udp_out)
    own_source(self, raw, ip)
    return raw:setpeername(policy:route(ip, port), port)
  end

  local function udp_out(self, data, ip, port)
    local raw = RAW[self]
    if not raw then return nil, "closed" end
    data = tostring(data)
    local ok, err = policy:budget("send", #data)
    if not ok then return nil, err end
    if not INTERNAL[self] and trace:enabled() then
      local to_ip, to_port = ip, port
      if not to_ip and self.peer then to_ip, to_port = self.peer[1], self.peer[2] end
      traced(self, "sendto", to_ip and trace:peer(to_ip, to_port) or 0, #data, "ok", platform.now())
    end
    policy.stats.sent = policy.stats.sent + #data
    local ratio = policy.settings.udp_drop_ratio
    if ratio > 0 and random() < ratio then
      policy.stats.dropped = policy.stats.dropped + 1
      return #data
    end
    -- a node of this daemon: over 127.0.0.1; one behind another router: the relay's UDP door,
    -- the datagram in its envelope (socket_policy, "Node relay")
    local dest_ip, dest_port = ip, port
    if not dest_ip and self.peer then dest_ip, dest_port = self.peer[1], self.peer[2] end
    local door = dest_ip and policy:relay_udp(dest_ip, dest_port)
    local wire, to, to_port = data, ip and policy:route(ip, port), port
    if door then
      wire = string.format("%s %s:%d\n", tostring(policy.settings.job_id), dest_ip, dest_port) .. data
      to, to_port = "127.0.0.1", door
    end
    if netem.active and sn.emulate_datagram(self, raw, data, ip, port, to, to_port, wire) then return #data end
    local deadline = deadline_of(self)
    while true do
      local n, e
      if to then n, e = raw:sendto(wire, to, to_port) else n, e = raw:send(data) end
      if n then return #data end
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
      local ok, denied = policy:deny_blacklisted(ip, port, "send")
      if not ok then return nil, denied end
    else
      ip, err = policy:check_dest(host, port, "send")
      if not ip then return nil, err end
    end
    local raw = RAW[self]
    if raw then own_source(self, raw, ip) end
    return udp_out(self, data, ip, tonumber(port))
  end

  local function udp_in(self, size, from)
    local raw = RAW[self]
    if not raw then return nil, "closed" end
    local deadline = deadline_of(self)
    while true do
      if policy.stats.received >= policy.settings.max_receive then return policy:budget("receive", 1) end
      local data, a, b
      local door = policy.settings.relay_udp_port
      if from or door then
        data, a, b = raw:receivefrom(door and size and size + 64 or size)
        if data and door and a == "127.0.0.1" and b == door then
          -- through the relay: "IP:PORT\n" + data, the sender's job address first
          local ip, port, body = data:match("^([^\n:]+):(%d+)\n(.*)$")
          if not ip then data = nil; a = "timeout" else data, a, b = body, ip, tonumber(port) end
          -- its answer goes back the same way (an ephemeral port of a node behind another router)
          if data then policy.settings.relayed[a .. ":" .. b] = true end
          if data and size and #data > size then data = data:sub(1, size) end
        end
      else
        data, a = raw:receive(size)
      end
      if data and policy.stats.received + #data > policy.settings.max_receive then
        return policy:budget("receive", #data)   -- a datagram beyond the budget is dropped
      end
      if data then
        policy.stats.received = policy.stats.received + #data
        if from then
          a = policy:unroute(a, b)   -- a node of this daemon is named by its job address
          -- remember the sender so that sendto can answer it (ephemeral client ports)
          local replies = self.replies
          if not replies or self.nreplies >= MAX_REPLY_PEERS then
            replies = {}; self.replies = replies; self.nreplies = 0
          end
          local key = a .. ":" .. tostring(b)
          if not replies[key] then replies[key] = true; self.nreplies = self.nreplies + 1 end
        end
        if from then return data, a, b end
        return data
      end
      if a ~= "timeout" then return nil, a end
      if not events.wait_socket(raw, "r", deadline) then return nil, RAW[self] and "timeout" or "closed" end
    end
  end

  function udp:receive(size) return udp_in(self, size, false) end
  function udp:receivefrom(size) return udp_in(self, size, true) end

  return wrap_udp
end

return M
