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
  fast.connect(ip, port, deadline, pool) -> link | nil, err | false (take the socket path; pool:
             free_idle() closes idle connections at the socket limit: splaylab.rpc_conn)
  fast.exchange(link, req, size, deadline) -> {link, reply, size} | nil, err, retryable
  fast.serve(kind, ip, port, serve, max, settings) -> inbox   a server ("tcp": rpc, its `max`
                                                   connections, settings.idle_timeout; "udp": urpc)
  fast.received(item) -> bool, fast.reply(item, reply, size) -> bool    the rpc server's side
  fast.udp_send(box, req, size, ip, port) -> true | nil, err    a request (box: the caller's)
  fast.udp_take(box, max_datagram) -> {reply, size} | nil        the caller's reader
  fast.udp_received(item) -> bool, fast.udp_reply(item, reply, size)   the urpc server's side
  fast.frame_size(n)                                     llenc's frame of n bytes

One set of functions for every node of a simulation (loaded once: splaylab.sim.world's
PROCESS_WIDE), as splaylab.events_core's: what a node's code calls acts for the node whose code
runs (events_core's current state, its `node`); what runs at a message's arrival (a timed
action of the kernel, no node's code) acts for the sender named by the item (its link end's
`owner`). A node's own modules (netem, socket_policy, llenc, platform: their state is the
node's) and generator are found once from its world (`context`).
]]
local events_core = require "splaylab.events_core"
local benc_copy = require "splaylab.benc_copy"

local M = { _NAME = "splaylab.rpc_fast", _VERSION = "0.2" }

local tonumber = tonumber
local digits = benc_copy.digits
local current_state, api = events_core.current_state, events_core.api
local sleep, thread, wait_socket = api.sleep, api.thread, api.wait_socket

-- The modules of node `node` (the kernel's record) the calls act through, made on its first call.
-- Its generator is its own math.random, as splaylab.socket_udp draws it.
local function context(node)
  local F = node.rpc_fast
  if F then return F end
  local req = node.world.require
  F = { platform = req "splaylab.platform", netem = req "splaylab.netem", policy = req "splaylab.socket_policy",
        llenc = req "splaylab.llenc", random = node.world.math.random }
  node.rpc_fast = F
  return F
end
-- the node whose code runs
local S_NODE = events_core.ST.NODE   -- the slot of a node's events state that names the node
local function here() return context(current_state()[S_NODE]) end

local function frame_size(n) return n + digits(n) + 1 end
M.frame_size = frame_size

-- The moment a TCP message of `frame` bytes reaches node `peer` on the connection end `box`
-- (socket_netem.queue_stream: the draws in its order, a stream keeps its order).
local function stream_at(F, box, frame, peer)
  local netem = F.netem
  local at = F.platform.now() + netem:serialize(frame) + netem:delay(peer) + netem:stream_penalty(frame, peer)
  local last = box.last_at
  if last and at < last then at = last end
  box.last_at = at
  return at
end

-- a socket of the node freed; release_socket: the box's (its on_close)
local function free_socket(policy) policy.stats.sockets = policy.stats.sockets - 1 end
local function release_socket(box) free_socket(context(box.owner).policy) end

-- rpc client ------------------------------------------------------------------------------------
function M.connect(ip, port, deadline, pool)
  local F = here()
  local platform, netem, policy = F.platform, F.netem, F.policy
  local net, owner = platform.sim_net, platform.sim_owner
  local ok, err = policy:count_socket()
  if not ok and pool:free_idle() then ok, err = policy:count_socket() end
  if not ok then return nil, err end
  local dest
  dest, err = policy:check_dest(ip, port, "connect")
  if not dest then free_socket(policy); return nil, err end
  port = tonumber(port)
  local peer = netem.active and netem:position_of(dest, port)
  if peer then
    while netem:partitioned(peer) do
      if platform.now() >= deadline then free_socket(policy); return nil, "timeout" end
      sleep(netem.PARTITION_POLL)
    end
  end
  local inbox = net:server_of("tcp", dest, port)
  if inbox == nil then free_socket(policy); return nil, "connection refused" end
  if inbox == false then free_socket(policy); return false end
  local c, s = net:link(owner, inbox.owner, release_socket, nil)
  c.fast, c.peer_pos = true, peer or nil
  s.caller_pos = peer and netem.me or nil   -- what the preamble tells the server
  inbox:put(s)                              -- the server accepts it (M.serve)
  if peer then
    local rtt = netem:rtt(peer)
    if rtt > 0 then sleep(rtt) end
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
-- the sender's node from the link's peer (socket_netem's flusher, the sender's view). Posted with
-- the item as its argument: a closure per message would stop the JIT's traces (FNEW is not compiled).
local function deliver_when_reachable(item)
  local from = item[1]
  local F = context(from.owner)
  local netem = F.netem
  if netem:partitioned(from.peer_pos) then
    local platform = F.platform
    platform.sim_net.post(platform.now() + netem.PARTITION_POLL, deliver_when_reachable, item)
  else
    deliver(item)
  end
end

local function send(F, from, item, frame)
  from.in_flight = from.in_flight + 1
  local netem = F.netem
  local peer = netem.active and from.peer_pos
  if not peer then return deliver(item) end
  local at = stream_at(F, from, frame, peer)
  local platform = F.platform
  -- due now: it leaves at once, as the flusher sends it in this same resume of the node
  if at <= platform.now() and not netem:partitioned(peer) then return deliver(item) end
  platform.sim_net.post(at, deliver_when_reachable, item)
end

function M.exchange(c, req, size, deadline)
  local F = here()
  if deadline - F.platform.now() <= 0 then return nil, "timeout" end
  local max = F.llenc.settings.max_size
  if size > max then return nil, "llenc: message of " .. size .. " bytes exceeds " .. max, true end
  local policy = F.policy
  local frame = frame_size(size)
  local ok, err = policy:budget("send", frame)
  if not ok then return nil, err, true end
  policy.stats.sent = policy.stats.sent + frame
  send(F, c, { c, req, size }, frame)
  while true do
    local item = c:take()
    if item then
      local rframe = frame_size(item[3])
      ok, err = policy:budget("receive", rframe)
      if not ok then
        policy.stats.received = policy.settings.max_receive
        return nil, err
      end
      policy.stats.received = policy.stats.received + rframe
      return item
    end
    if c.state ~= "open" then return nil, "closed", true end
    if not wait_socket(c, "r", deadline) then return nil, "timeout" end
  end
end

-- servers ----------------------------------------------------------------------------------------
-- One accepted connection, as splay.rpc's handler serves it: its requests in turn, until
-- the caller closes it or it idles `settings.idle_timeout` s.
local function handle(s, serve, settings, now)
  while true do
    local item = s:take()
    if item then
      if not serve(item) then break end
    elseif s.state ~= "open" or not wait_socket(s, "r", now() + settings.idle_timeout) then
      break
    end
  end
  s:close()
end

-- kind "tcp": the inbox gets connections (net.server's accept loop: a socket of this node's
-- limit, then at most `max` at once, each served by a thread of its own); kind "udp": it gets
-- datagrams, each served in a thread of its own.
function M.serve(kind, ip, port, serve, max, settings)
  local F = here()
  local platform, policy = F.platform, F.policy
  local net = platform.sim_net
  local inbox = net:box(platform.sim_owner)
  local active = 0
  local function closed(s)
    active = active - 1
    release_socket(s)
  end
  local function accept(s)
    if not policy:count_socket() then s:close(); return end
    if active >= max then s.on_close = release_socket; s:close(); return end
    active = active + 1
    s.peer_pos = s.caller_pos
    s.on_close = closed
    thread(function() handle(s, serve, settings, platform.now) end)
  end
  thread(function()
    while true do
      local item = inbox:take()
      if item and kind == "tcp" then
        accept(item)
      elseif item then
        thread(function() serve(item) end)
      elseif inbox.state ~= "open" then
        return
      else
        wait_socket(inbox, "r", nil)
      end
    end
  end)
  net:serve(kind, ip, port, inbox)
  return inbox
end

-- The server side of a request's bytes: false when they break the connection (receive budget).
function M.received(item)
  local policy = here().policy
  local frame = frame_size(item[3])
  if not policy:budget("receive", frame) then
    policy.stats.received = policy.settings.max_receive
    return false
  end
  policy.stats.received = policy.stats.received + frame
  return true
end

-- The rpc server's answer on the request's connection: false when it cannot be sent (the
-- server then closes the connection, as live).
function M.reply(item, reply, size)
  local F = here()
  local policy = F.policy
  local s = item[1].peer
  local frame = frame_size(size)
  if size > F.llenc.settings.max_size or not policy:budget("send", frame) then return false end
  policy.stats.sent = policy.stats.sent + frame
  send(F, s, { s, reply, size }, frame)
  return true
end

-- urpc ---------------------------------------------------------------------------------------------
-- (the item's sender's box is its first field; every node shares the one virtual net)
local function deliver_datagram(item)
  local inbox = item[1].net:server_of("udp", item[4], item[5])
  if inbox then inbox:put(item) end   -- else nobody serves urpc there: lost
end

-- client:sendto(request) as splaylab.socket_udp does it: the destination's rules, the send
-- budget, udp_drop_ratio, then the network model (partition, loss, delay).
function M.udp_send(box, req, size, ip, port)
  local F = here()
  local platform, netem, policy = F.platform, F.netem, F.policy
  local dest, err = policy:check_dest(ip, port, "send")
  if not dest then return nil, err end
  local ok
  ok, err = policy:budget("send", size)
  if not ok then return nil, err end
  policy.stats.sent = policy.stats.sent + size
  local ratio = policy.settings.udp_drop_ratio
  if ratio > 0 and F.random() < ratio then
    policy.stats.dropped = policy.stats.dropped + 1
    return true
  end
  port = tonumber(port)
  local item = { box, req, size, dest, port, platform.identity.ip }
  local pos = netem.active and netem:position_of(dest, port)
  if pos then
    if netem:partitioned(pos) or netem:datagram_lost(size) then
      policy.stats.dropped = policy.stats.dropped + 1
      return true
    end
    local delay = netem:serialize(size) + netem:delay(pos)
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
  local policy = here().policy
  while true do
    local rep = box:take()
    if not rep then return nil end
    local size = rep[2]
    local stats, max = policy.stats, policy.settings.max_receive
    if size <= max_datagram and stats.received < max and stats.received + size <= max then
      stats.received = stats.received + size
      return rep
    end
  end
end

-- The server side of a datagram: false when the receive budget drops it.
function M.udp_received(item)
  local policy = here().policy
  local size, max, stats = item[3], policy.settings.max_receive, policy.stats
  if stats.received >= max or stats.received + size > max then return false end
  stats.received = stats.received + size
  return true
end

-- u:sendto(reply, ip, rport) back to the caller: a reply to a sender it heard (only the
-- blacklist applies), the send budget, udp_drop_ratio; no delay (see the header).
function M.udp_reply(item, reply, size)
  local F = here()
  local policy = F.policy
  if not policy:deny_blacklisted(item[6], item[5], "send") then return end
  if not policy:budget("send", size) then return end
  policy.stats.sent = policy.stats.sent + size
  local ratio = policy.settings.udp_drop_ratio
  if ratio > 0 and F.random() < ratio then
    policy.stats.dropped = policy.stats.dropped + 1
    return
  end
  item[1]:put({ reply, size })
end

return M
