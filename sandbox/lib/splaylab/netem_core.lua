--[[
splaylab.netem_core - the emulated wide-area network, applied by the sender (WANCE, seed 001):
splaylab.socket asks it, for each message to another node of the job, when the message may
leave (delay, bandwidth), whether it is lost, and whether a partition holds it back.

Runtime side only (never given to student code). A node's model is an object (splaylab.netem:
`require "splaylab.netem"` is the node's), its methods one set for every node of a simulation
(splaylab.sim.world's PROCESS_WIDE); its state (the model, the address index, the generator,
the bandwidth bucket) is the object's.
  core.new(platform) -> netem                     a node's, over its platform (clock, seed)
  netem:init(block, me, nodes, nb_ports, epoch [, addresses])
                                                  block = job.json's "net" (sandbox/netmodel.py
                                                  documents it), me = my position, epoch = the
                                                  wall-clock time partition offsets count from,
                                                  addresses = "ip:port" -> position, prebuilt
                                                  (the simulator shares one between nodes)
  netem.active                                    false: no emulation, the socket layer skips it
  netem:position_of(ip, port) -> k | nil          which node owns that address
  netem:delay(k) -> s        one-way delay to node k now (jitter or trace draw included)
  netem:rtt(k) -> s          the round trip to node k without jitter (a TCP handshake)
  netem:partitioned(k) -> bool
  netem:datagram_lost(size) -> bool      UDP: lost if any of its fragments is (MTU - 28 bytes each)
  netem:stream_penalty(size, k) -> s     TCP: a lost segment costs a retransmission timeout
                                         (max(200 ms, 2 RTT)), once per message
  netem:serialize(size) -> s             bandwidth cap: this node's token bucket (burst 1 MTU)
Draws use a generator of its own (xorshift, seeded from the node's seed): the application's
math.random sequence does not depend on the traffic. Limits: a UDP reply to a socket that is
not bound to a node's port cannot be attributed to a node and travels undelayed.
]]
local memo = require "splaylab.memo"
local bit = require "bit"

local C = { _NAME = "splaylab.netem_core", _VERSION = "0.2" }
local Netem = {}
Netem.__index = Netem

-- How often a sender blocked by a partition looks again (splaylab.socket's connect,
-- socket_netem's queues, the simulator's rpc fast path: one step, so both paths heal alike).
Netem.PARTITION_POLL = 0.05

local floor, max, min, sqrt, log, cos, pi = math.floor, math.max, math.min, math.sqrt, math.log, math.cos, math.pi
local type, tonumber, tostring, ipairs, setmetatable = type, tonumber, tostring, ipairs, setmetatable
local bxor, lshift, rshift, tobit = bit.bxor, bit.lshift, bit.rshift, bit.tobit
local INITIAL_STATE = 2463534242

--- A node's model (inactive until init), over its platform.
function C.new(platform)
  return setmetatable({ platform = platform, active = false, net = nil, index = {}, epoch = 0,
    free_at = -math.huge, state = INITIAL_STATE }, Netem)
end

local function uniform(self)
  local x = self.state
  x = bxor(x, lshift(x, 13))
  x = bxor(x, rshift(x, 17))
  x = bxor(x, lshift(x, 5))
  self.state = x
  return (x % 4294967296) / 4294967296
end

local function normal(self, mean, sd)
  if sd <= 0 then return mean end
  local u1 = uniform(self)
  if u1 < 1e-12 then u1 = 1e-12 end
  return mean + sd * sqrt(-2 * log(u1)) * cos(2 * pi * uniform(self))
end

function Netem:init(block, me, nodes, nb_ports, t0, addresses)
  self.net, self.index, self.free_at = nil, {}, -math.huge
  self.active = false
  if type(block) ~= "table" then return end
  local net = block
  self.net = net
  net.loss = tonumber(net.loss) or 0
  net.mtu = tonumber(net.mtu) or 1500
  net.jitter = tonumber(net.jitter) or 0
  net.bandwidth = tonumber(net.bandwidth)
  net.partitions = net.partitions or {}
  -- Churn scripts' `loss` / `latency` statements: from `at` on, loss (nil: the job's own) and
  -- a factor on every delay, until the next phase (docs/churn.md).
  net.phases = net.phases or {}
  self.me = tonumber(me) or 1
  local platform = self.platform
  self.epoch = tonumber(t0) or platform.now()
  local index = self.index
  if addresses then index, nodes = addresses, nil; self.index = index end
  for k, node in ipairs(nodes or {}) do
    local ip, port = node.ip and platform.toip(tostring(node.ip)), tonumber(node.port)
    if ip and port then
      for p = 0, (tonumber(nb_ports) or 1) - 1 do index[ip .. ":" .. (port + p)] = k end
    end
  end
  local seed = tonumber(platform.random_seed()) or 1
  local state = tobit(seed * 2654435761 % 4294967296)
  if state == 0 then state = INITIAL_STATE end
  self.state = state
  self.active = true
end

-- (through the memo: the address's text is made once, not at every message)
local position = memo.position
function Netem:position_of(ip, port)
  local k = position(self.index, ip, port)
  if type(k) == "number" then return k end
  return nil
end

-- The phase in effect now (nil before the first): phases are few and sorted by `at`.
local function phase(self)
  local phases = self.net.phases
  if #phases == 0 then return nil end
  local now = self.platform.now() - self.epoch
  for i = #phases, 1, -1 do
    if now >= phases[i].at then return phases[i] end
  end
  return nil
end

local function latency_factor(self)
  local p = phase(self)
  return p and tonumber(p.latency) or 1
end

local function loss_now(self)
  local p = phase(self)
  return p and tonumber(p.loss) or self.net.loss
end

local function base_delay(self, k)
  local d = self.net.delay
  if type(d) == "table" then d = d[k] end
  return (tonumber(d) or 0) * latency_factor(self)
end

function Netem:delay(k)
  local d
  local net = self.net
  local trace = net.trace
  if trace then
    local series = trace.series[k]
    local n = series and #series or 0
    if n == 0 then return 0 end
    local i = min(n, max(1, floor((self.platform.now() - self.epoch) / trace.period) + 1))
    d = normal(self, series[i][1], series[i][2]) * latency_factor(self)
  else
    d = normal(self, base_delay(self, k), net.jitter * latency_factor(self))
  end
  return d > 0 and d or 0
end

function Netem:rtt(k)
  local back = self.net.back and tonumber(self.net.back[k])
  back = back and back * latency_factor(self) or base_delay(self, k)
  return base_delay(self, k) + back
end

function Netem:partitioned(k)
  local now = self.platform.now() - self.epoch
  local me = self.me
  for _, p in ipairs(self.net.partitions) do
    if now >= p.at and (p["until"] == nil or now < p["until"]) then
      local g = p.groups
      if g[me] ~= g[k] then return true end
    end
  end
  return false
end

function Netem:datagram_lost(size)
  local p = loss_now(self)
  if p <= 0 then return false end
  local fragments = math.ceil(max(size, 1) / (self.net.mtu - 28))
  return uniform(self) < 1 - (1 - p) ^ fragments
end

function Netem:stream_penalty(size, k)
  local p = loss_now(self)
  if p <= 0 then return 0 end
  local segments = math.ceil(max(size, 1) / (self.net.mtu - 40))
  if uniform(self) < 1 - (1 - p) ^ segments then return max(0.2, 2 * self:rtt(k)) end
  return 0
end

function Netem:serialize(size)
  local net = self.net
  local bw = net.bandwidth
  if not bw then return 0 end
  local now = self.platform.now()
  -- a burst of one MTU leaves at once; beyond it, the bucket drains at bw bytes/s
  local start = max(now - net.mtu / bw, self.free_at)
  local free_at = start + size / bw
  self.free_at = free_at
  return max(0, free_at - now)
end

return C
