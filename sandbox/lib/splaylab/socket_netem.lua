--[[
splaylab.socket_netem - the sender side of the emulated WAN (splaylab.netem) in
splaylab.socket's wrappers: the delay queues a message waits in before it leaves, and the
16-byte preamble by which an accepting node learns which node connected to it.

Runtime side only (splaylab.socket; never given to student code). `obj` is a socket wrapper,
`raw` its transport socket:
  sn.introduce(raw, peer)                  after a connect to node `peer`: the handshake's round
                                           trip, then this node's position in the preamble
  sn.learn_peer(obj, raw, deadline)        first send/receive on an accepted connection: read the
                                           preamble (obj.peer = its position), or keep the bytes
                                           that came instead in obj.stash
  sn.unstash(obj, pattern, size) -> true, answer | false, start | nil
                                           a receive served from obj.stash, whole or begun
  sn.queue_stream(obj, raw, chunk)         TCP: chunk leaves after serialization and the delay
                                           (+ a loss penalty), in order, held while a partition
                                           lasts; a thread (obj.flusher) sends obj.outq and
                                           closes obj.drain (set by close) once it is empty
  sn.emulate_datagram(obj, raw, data, ip, port) -> true | nil
                                           UDP: true when the datagram is gone (lost,
                                           partitioned or queued in obj.dgq to leave later);
                                           nil: not a node's address or no delay, send it now
Nothing of the preamble reaches the application. Losses count in socket.stats.dropped.
Limits: a peer that is not a SplayLab node sends no preamble: its first bytes are read while
looking for one (kept, then handed out by the next receive). Timers fire late on a real
machine: the queues learn by how much and wake that much earlier (below).
]]
local platform = require "splaylab.platform"
local events = require "splaylab.events"
local netem = require "splaylab.netem"
local policy = require "splaylab.socket_policy"

local M = { _NAME = "splaylab.socket_netem", _VERSION = "0.1" }

local tonumber = tonumber
local format = string.format

-- A connecting node announces its position in 16 bytes before any data (the accepting side
-- needs it for its own sender-side delays); nothing of it reaches the application.
local PREAMBLE_TAG = "\0SPLAYLAB"
local PREAMBLE_LEN = #PREAMBLE_TAG + 7

function M.introduce(raw, peer)
  local rtt = netem:rtt(peer)
  if rtt > 0 then events.sleep(rtt) end
  -- tell the accepting node who we are (sender-side delays need the peer's position)
  raw:send(PREAMBLE_TAG .. format("%06d\n", netem.me))
end

function M.learn_peer(self, raw, deadline)
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

-- Bytes read while looking for a preamble that was not there: the answer of a line or sized
-- read when they hold it all (true, answer), else the start of it (false, bytes).
function M.unstash(self, pattern, size)
  local stash = self.stash
  if not stash then return nil end
  self.stash = nil
  if pattern == "*l" then
    local eol = stash:find("\n", 1, true)
    if eol then
      if eol < #stash then self.stash = stash:sub(eol + 1) end
      return true, (stash:sub(1, eol - 1):gsub("\r", ""))
    end
  elseif size and #stash >= size then
    if size < #stash then self.stash = stash:sub(size + 1) end
    return true, stash:sub(1, size)
  end
  return false, stash
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
    elseif netem:partitioned(self.peer) then
      events.sleep(netem.PARTITION_POLL)
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
    policy.stats.sockets = policy.stats.sockets - 1
  end
end

function M.queue_stream(self, raw, chunk)
  local now, peer = platform.now(), self.peer
  local at = now + netem:serialize(#chunk) + netem:delay(peer) + netem:stream_penalty(#chunk, peer)
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
-- or queued to leave later). `to`, `to_port`, `wire`: where the kernel sends it and what
-- (socket_policy.route of ip, or the relay's door with the datagram in its envelope).
function M.emulate_datagram(self, raw, data, ip, port, to, to_port, wire)
  local dest_ip, dest_port = ip, port
  if not dest_ip and self.peer then dest_ip, dest_port = self.peer[1], self.peer[2] end
  local pos = dest_ip and netem:position_of(dest_ip, dest_port)
  if not pos then return nil end
  if netem:partitioned(pos) or netem:datagram_lost(#data) then
    policy.stats.dropped = policy.stats.dropped + 1
    return true
  end
  local delay = netem:serialize(#data) + netem:delay(pos)
  if delay <= 0 then return nil end
  local q = self.dgq
  if not q then q = {}; self.dgq = q end
  local at = platform.now() + delay
  local i = #q + 1
  while i > 1 and q[i - 1][1] > at do i = i - 1 end
  table.insert(q, i, { at, wire or data, to or ip, to_port or port })
  if not self.dgflusher then self.dgflusher = events.thread(function() flush_datagrams(self, raw) end) end
  return true
end

return M
