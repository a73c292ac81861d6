--[[
splaylab.socket_tcp - the TCP object of splaylab.socket (LuaSocket's master, server and client
objects, as SPLAY restricts them): bind, listen, connect, accept, send, receive, shutdown, under
splaylab.socket_policy's rules, on the emulated WAN (splaylab.socket_netem) and through the
daemon's node relay (splaylab.socket_relay) where job.json says so. Runtime side:
  local wrap_tcp = require("splaylab.socket_tcp").build{raw, internal, peer, common, traced, deadline_of}
  wrap_tcp(raw, kind) -> the student's object over a raw LuaSocket TCP object
(splaylab.socket's tables of raw objects, internal sockets and traced peers, its common methods,
its trace row and its deadline: one set per node, splaylab.socket's).
]]
local platform = require "splaylab.platform"
local events = require "splaylab.events"
local netem = require "splaylab.netem"
local trace = require "splaylab.trace"
local policy = require "splaylab.socket_policy"
local sn = require "splaylab.socket_netem"
local relay = require "splaylab.socket_relay"

local M = { _NAME = "splaylab.socket_tcp", _VERSION = "0.1" }

local tostring, tonumber, setmetatable, concat, min = tostring, tonumber, setmetatable, table.concat, math.min
local RAW, INTERNAL, PEER, traced, deadline_of   -- splaylab.socket's (M.build)

local tcp = {}   -- its methods; the common ones come from splaylab.socket (M.build)
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
  if not policy:may_bind(port) then return policy:bind_denied(port) end
  raw:setoption("reuseaddr", true)
  local ok, err = raw:bind(policy:bind_host(host), port)
  if not ok and policy:own_job_ip(host) then ok, err = raw:bind("*", port) end
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
  if RAW[self] and not INTERNAL[self] and trace:enabled() then
    local ip = platform.toip(tostring(host))
    local peer = ip and trace:peer(ip, tonumber(port)) or tostring(host) .. ":" .. tostring(port)
    if ok then PEER[self] = peer end
    traced(self, "connect", peer, 0, ok and "ok" or (err == "timeout" and "timeout" or
      (tostring(err):find("refused", 1, true) and "refused" or "error")), t0)
  end
  return ok, err
end

function tcp_connect(self, host, port)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  local ip, err = policy:check_dest(host, port, "connect")
  if not ip then return nil, err end
  local deadline = deadline_of(self)
  local peer = netem.active and netem:position_of(ip, tonumber(port))
  if peer then
    -- emulated WAN: a partition swallows the SYN (the connect waits for the heal or its
    -- timeout); the handshake costs a round trip
    while netem:partitioned(peer) do
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
  local door = policy:relay_door(ip, port)
  local to, to_port = door and "127.0.0.1" or policy:route(ip, port), door or port
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
      local ok, e = policy:count_socket()
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
  local ok, err = policy:budget("send", j - i + 1)
  if not ok then return nil, err, i - 1 end
  local deadline = deadline_of(self)
  if self.learn_peer then sn.learn_peer(self, raw, deadline) end
  if not INTERNAL[self] and trace:enabled() then
    local peer = PEER[self]
    if not peer then
      local ip, rport = raw:getpeername()
      peer = ip and trace:peer(ip, rport) or 0
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

-- prefix and the chunks read so far (`one` chunk, or a table of them once there are two)
local function so_far(prefix, one, got)
  if got then return prefix .. concat(got) end
  if not one then return prefix end
  if prefix == "" then return one end   -- most reads: the chunk itself, no copy
  return prefix .. one
end

function tcp:receive(pattern, prefix)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  pattern = pattern or "*l"
  prefix = prefix and tostring(prefix) or ""
  local one, got = nil, nil
  local ngot = 0
  local deadline = deadline_of(self)
  local size = tonumber(pattern)
  if self.learn_peer then sn.learn_peer(self, raw, deadline) end
  -- bytes read while looking for a preamble that was not there
  local whole, stashed = sn.unstash(self, pattern, size)
  if whole then return prefix .. stashed end
  if stashed then one, ngot = stashed, #stashed end
  -- rpc's own sockets mark the read that follows their request or reply (await_first): the
  -- answer cannot be there yet, so wait for it first instead of after a read that fails
  -- (a system call per call on each side; data already buffered is readable at once)
  if self.await_first then
    self.await_first = nil
    if ngot == 0 and not events.wait_socket(raw, "r", deadline) then
      return nil, RAW[self] and "timeout" or "closed", prefix
    end
  end
  while true do
    if size and size - ngot <= 0 then return so_far(prefix, one, got) end
    local left = policy.settings.max_receive - policy.stats.received
    if left <= 0 then
      local _, berr = policy:budget("receive", 1)
      return nil, berr, so_far(prefix, one, got)
    end
    -- never hand out more than the budget: a sized read asks for at most what is left; a
    -- line or *a read is cut there (the rest is lost: the budget is spent for good)
    local want = size and min(size - ngot, left) or pattern
    local data, err, partial = raw:receive(want)
    local chunk = data or partial or ""
    if #chunk > left then
      chunk, data, err = chunk:sub(1, left), nil, "timeout"
    end
    if #chunk > 0 then
      if got then got[#got + 1] = chunk
      elseif one then got, one = { one, chunk }, nil
      else one = chunk end
      ngot = ngot + #chunk
      policy.stats.received = policy.stats.received + #chunk
    end
    if policy.stats.received >= policy.settings.max_receive and not data then
      local _, berr = policy:budget("receive", 1)
      return nil, berr, so_far(prefix, one, got)
    end
    if data and not (size and ngot < size) then
      return so_far(prefix, one, got)
    elseif data then -- luacheck: ignore 542 (short read: loop again)
    elseif err ~= "timeout" then
      return nil, err, so_far(prefix, one, got)
    elseif not events.wait_socket(raw, "r", deadline) then
      return nil, RAW[self] and "timeout" or "closed", so_far(prefix, one, got)
    end
  end
end

function tcp:shutdown(mode)
  local raw = RAW[self]
  if not raw then return nil, "closed" end
  return raw:shutdown(mode)
end

function M.build(ctx)
  RAW, INTERNAL, PEER, traced, deadline_of = ctx.raw, ctx.internal, ctx.peer, ctx.traced, ctx.deadline_of
  setmetatable(tcp, { __index = ctx.common })
  return wrap_tcp
end

return M
