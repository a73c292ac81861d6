--[[
splaylab.rpc_fast - the message fast path of splay.rpc and splay.urpc in the simulator
(docs/simulation.md, "The message fast path"): a call hands the peer a copy of the request and
gets a copy of the reply back, as benc_copy makes them (what decode(encode(v)) gives, with the
same errors), without bytes, framing or the simulated sockets. Everything else a call meets
on the socket path is done here the same way and in the same order:

  connect    a socket of the node's limit (idle pooled ones go first), the destination rules
             (socket_policy), the wait while a partition swallows the SYN (50 ms steps, up to
             the deadline), "connection refused" where no server listens, the handshake's
             round trip; the server side counts a socket and its `max` connections
  a message  the send and receive budgets count the llenc frame (the encoded size, its
             length in decimal and "\n"); the network model's draws (serialize, delay, loss
             penalty; UDP: udp_drop_ratio, partition, loss, delay) are made by the sender at
             send time, in the socket path's order, so a run draws the same numbers; a TCP
             message waits 50 ms steps while a partition holds it, in FIFO per connection
  failures   a node that ends closes its ends of every link: the other side reads
             end-of-stream ("closed", and a kept connection retries once on a new one); a
             request already sent by a caller that gave up is still served (live: the socket
             drains its queue); a message whose sender ended before it left is lost
  urpc       resends every timeout / tries, at-least-once; replies travel undelayed (live they
             go to the caller's ephemeral port, which is no node's address for the model);
             a reply larger than the caller's max_datagram is cut, so lost

Runtime side only, active when the simulator set platform.sim_net (sim.lua; not with
--sim-transport sockets). A server keeps its real socket too: an app may still talk to it with
its own sockets, and a call to a port where an app's own socket listens takes the socket path.
  fast.connect(ip, port, deadline, free_idle) -> link | nil, err | false (take the socket path)
  fast.exchange(link, req, size, deadline) -> {link, reply, size} | nil, err, retryable
  fast.serve(kind, ip, port, serve, max, settings) -> inbox   a server ("tcp": rpc, its `max`
                                                   connections, settings.idle_timeout; "udp": urpc)
  fast.received(item) -> bool, fast.reply(item, reply, size) -> bool    the rpc server's side
  fast.udp_send(box, req, size, ip, port) -> true | nil, err    a request (box: the caller's)
  fast.udp_take(box, max_datagram) -> {reply, size} | nil        the caller's reader
  fast.udp_received(item) -> bool, fast.udp_reply(item, reply, size)   the urpc server's side
  fast.frame_size(n)                                     llenc's frame of n bytes
]]
local platform = require "splaylab.platform"
local events = require "splaylab.events"
local netem = require "splaylab.netem"
local policy = require "splaylab.socket_policy"
local llenc = require "splaylab.llenc"
local benc_copy = require "splaylab.benc_copy"

local M = { _NAME = "splaylab.rpc_fast", _VERSION = "0.1" }

local tonumber = tonumber
local digits = benc_copy.digits
local random = math.random   -- the node's own generator, as splaylab.socket_udp draws it
local PARTITION_POLL = netem.PARTITION_POLL

local function frame_size(n) return n + digits(n) + 1 end
M.frame_size = frame_size

-- The moment a TCP message of `frame` bytes reaches node `peer` on the connection end `box`
-- (socket_netem.queue_stream: the draws in its order, a stream keeps its order).
local function stream_at(box, frame, peer)
  local at = platform.now() + netem.serialize(frame) + netem.delay(peer) + netem.stream_penalty(frame, peer)
  local last = box.last_at
  if last and at < last then at = last end
  box.last_at = at
  return at
end

local function release_socket() policy.stats.sockets = policy.stats.sockets - 1 end

-- rpc client ------------------------------------------------------------------------------------
function M.connect(ip, port, deadline, free_idle)
  local net = platform.sim_net
  local ok, err = policy.count_socket()
  if not ok and free_idle() then ok, err = policy.count_socket() end
  if not ok then return nil, err end
  local dest
  dest, err = policy.check_dest(ip, port, "connect")
  if not dest then release_socket(); return nil, err end
  port = tonumber(port)
  local peer = netem.active and netem.position_of(dest, port)
  if peer then
    while netem.partitioned(peer) do
      if platform.now() >= deadline then release_socket(); return nil, "timeout" end
      events.sleep(PARTITION_POLL)
    end
  end
  local inbox = net:server_of("tcp", dest, port)
  if inbox == nil then release_socket(); return nil, "connection refused" end
  if inbox == false then release_socket(); return false end
  local c, s = net:link(platform.sim_owner, inbox.owner, release_socket, nil)
  c.fast, c.peer_pos = true, peer or nil
  s.caller_pos = peer and netem.me or nil   -- what the preamble tells the server
  inbox:put(s)                              -- the server accepts it (M.serve)
  if peer then
    local rtt = netem.rtt(peer)
    if rtt > 0 then events.sleep(rtt) end
  end
  return c
end

-- A message of one end of a link reaches the other ({link, request or reply, size}), unless
-- its sender's node ended meanwhile.
local function deliver(item)
  local from = item[1]
  if from.ended then return end
  from.peer:put(item)
  from:delivered()
end

-- The message delivered now, or held PARTITION_POLL s at a time while a partition separates
-- this node from the link's peer (socket_netem's flusher, the sender's view). Posted with the
-- item as its argument: a closure per message would stop the JIT's traces (FNEW is not compiled).
local function deliver_when_reachable(item)
  if netem.partitioned(item[1].peer_pos) then
    platform.sim_net.post(platform.now() + PARTITION_POLL, deliver_when_reachable, item)
  else
    deliver(item)
  end
end

local function send(from, item, frame)
  from.in_flight = from.in_flight + 1
  local peer = netem.active and from.peer_pos
  if not peer then return deliver(item) end
  local at = stream_at(from, frame, peer)
  -- due now: it leaves at once, as the flusher sends it in this same resume of the node
  if at <= platform.now() and not netem.partitioned(peer) then return deliver(item) end
  platform.sim_net.post(at, deliver_when_reachable, item)
end

function M.exchange(c, req, size, deadline)
  if deadline - platform.now() <= 0 then return nil, "timeout" end
  local max = llenc.settings.max_size
  if size > max then return nil, "llenc: message of " .. size .. " bytes exceeds " .. max, true end
  local frame = frame_size(size)
  local ok, err = policy.budget("send", frame)
  if not ok then return nil, err, true end
  policy.stats.sent = policy.stats.sent + frame
  send(c, { c, req, size }, frame)
  while true do
    local item = c:take()
    if item then
      local rframe = frame_size(item[3])
      ok, err = policy.budget("receive", rframe)
      if not ok then
        policy.stats.received = policy.settings.max_receive
        return nil, err
      end
      policy.stats.received = policy.stats.received + rframe
      return item
    end
    if c.state ~= "open" then return nil, "closed", true end
    if not events.wait_socket(c, "r", deadline) then return nil, "timeout" end
  end
end

-- servers ----------------------------------------------------------------------------------------
-- One accepted connection, as splay.rpc's handler serves it: its requests in turn, until
-- the caller closes it or it idles `settings.idle_timeout` s.
local function handle(s, serve, settings)
  while true do
    local item = s:take()
    if item then
      if not serve(item) then break end
    elseif s.state ~= "open" or not events.wait_socket(s, "r", platform.now() + settings.idle_timeout) then
      break
    end
  end
  s:close()
end

-- kind "tcp": the inbox gets connections (net.server's accept loop: a socket of this node's
-- limit, then at most `max` at once, each served by a thread of its own); kind "udp": it gets
-- datagrams, each served in a thread of its own.
function M.serve(kind, ip, port, serve, max, settings)
  local net = platform.sim_net
  local inbox = net:box(platform.sim_owner)
  local active = 0
  local function accept(s)
    if not policy.count_socket() then s:close(); return end
    if active >= max then s.on_close = release_socket; s:close(); return end
    active = active + 1
    s.peer_pos = s.caller_pos
    s.on_close = function() active = active - 1; release_socket() end
    events.thread(function() handle(s, serve, settings) end)
  end
  events.thread(function()
    while true do
      local item = inbox:take()
      if item and kind == "tcp" then
        accept(item)
      elseif item then
        events.thread(function() serve(item) end)
      elseif inbox.state ~= "open" then
        return
      else
        events.wait_socket(inbox, "r", nil)
      end
    end
  end)
  net:serve(kind, ip, port, inbox)
  return inbox
end

-- The server side of a request's bytes: false when they break the connection (receive budget).
function M.received(item)
  local frame = frame_size(item[3])
  if not policy.budget("receive", frame) then
    policy.stats.received = policy.settings.max_receive
    return false
  end
  policy.stats.received = policy.stats.received + frame
  return true
end

-- The rpc server's answer on the request's connection: false when it cannot be sent (the
-- server then closes the connection, as live).
function M.reply(item, reply, size)
  local s = item[1].peer
  local frame = frame_size(size)
  if size > llenc.settings.max_size or not policy.budget("send", frame) then return false end
  policy.stats.sent = policy.stats.sent + frame
  send(s, { s, reply, size }, frame)
  return true
end

-- urpc ---------------------------------------------------------------------------------------------
local function deliver_datagram(item)
  local inbox = platform.sim_net:server_of("udp", item[4], item[5])
  if inbox then inbox:put(item) end   -- else nobody serves urpc there: lost
end

-- client:sendto(request) as splaylab.socket_udp does it: the destination's rules, the send
-- budget, udp_drop_ratio, then the network model (partition, loss, delay).
function M.udp_send(box, req, size, ip, port)
  local dest, err = policy.check_dest(ip, port, "send")
  if not dest then return nil, err end
  local ok
  ok, err = policy.budget("send", size)
  if not ok then return nil, err end
  policy.stats.sent = policy.stats.sent + size
  local ratio = policy.settings.udp_drop_ratio
  if ratio > 0 and random() < ratio then
    policy.stats.dropped = policy.stats.dropped + 1
    return true
  end
  port = tonumber(port)
  local item = { box, req, size, dest, port, platform.identity.ip }
  local pos = netem.active and netem.position_of(dest, port)
  if pos then
    if netem.partitioned(pos) or netem.datagram_lost(size) then
      policy.stats.dropped = policy.stats.dropped + 1
      return true
    end
    local delay = netem.serialize(size) + netem.delay(pos)
    if delay > 0 then
      platform.sim_net.post(platform.now() + delay, deliver_datagram, item)
      return true
    end
  end
  deliver_datagram(item)
  return true
end

-- The next reply in the caller's box: {reply, size} | nil (none yet). A reply the caller's
-- socket would cut (max_datagram) or could not take (receive budget) is lost.
function M.udp_take(box, max_datagram)
  while true do
    local rep = box:take()
    if not rep then return nil end
    local size = rep[2]
    if size <= max_datagram and policy.stats.received < policy.settings.max_receive
      and policy.stats.received + size <= policy.settings.max_receive then
      policy.stats.received = policy.stats.received + size
      return rep
    end
  end
end

-- The server side of a datagram: false when the receive budget drops it.
function M.udp_received(item)
  local size, max = item[3], policy.settings.max_receive
  if policy.stats.received >= max or policy.stats.received + size > max then return false end
  policy.stats.received = policy.stats.received + size
  return true
end

-- u:sendto(reply, ip, rport) back to the caller: a reply to a sender it heard (only the
-- blacklist applies), the send budget, udp_drop_ratio; no delay (see the header).
function M.udp_reply(item, reply, size)
  if not policy.deny_blacklisted(item[6], item[5], "send") then return end
  if not policy.budget("send", size) then return end
  policy.stats.sent = policy.stats.sent + size
  local ratio = policy.settings.udp_drop_ratio
  if ratio > 0 and random() < ratio then
    policy.stats.dropped = policy.stats.dropped + 1
    return
  end
  item[1]:put({ reply, size })
end

return M
