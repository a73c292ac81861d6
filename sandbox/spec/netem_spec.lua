local netem = require "splaylab.netem"
local platform = require "splaylab.platform"

describe("splaylab.netem", function()
  local nodes = { { ip = "127.0.0.1", port = 30000 }, { ip = "127.0.0.1", port = 30010 },
    { ip = "127.0.0.1", port = 30020 } }
  local saved_now = platform.now
  after_each(function() platform.now = saved_now; netem:init(nil) end)

  it("is off without a block", function()
    netem:init(nil, 1, nodes, 1, 0)
    assert.is_false(netem.active)
  end)

  it("maps every port of every node to its position and reads its row of delays", function()
    netem:init({ delay = { 0, 0.02, 0.1 } }, 1, nodes, 2, 0)
    assert.is_true(netem.active)
    assert.equal(2, netem:position_of("127.0.0.1", 30011))
    assert.is_nil(netem:position_of("127.0.0.1", 30012))
    assert.equal(0.02, netem:delay(2))
    assert.equal(0.2, netem:rtt(3))
  end)

  it("draws jitter around the delay, never below zero, with its own generator", function()
    netem:init({ delay = 0.05, jitter = 0.01 }, 1, nodes, 1, 0)
    local sum, below = 0, 0
    math.randomseed(1)
    local before = math.random()
    math.randomseed(1)
    for _ = 1, 2000 do
      local d = netem:delay(2)
      sum = sum + d
      if d < 0 then below = below + 1 end
    end
    assert.equal(0, below)
    assert.is_true(math.abs(sum / 2000 - 0.05) < 0.002)
    assert.equal(before, math.random())   -- the app's math.random sequence is untouched
  end)

  it("loses a datagram when any of its fragments is lost", function()
    netem:init({ delay = 0, loss = 0.1, mtu = 1028 }, 1, nodes, 1, 0)
    local lost_small, lost_big = 0, 0
    for _ = 1, 4000 do
      if netem:datagram_lost(100) then lost_small = lost_small + 1 end
      if netem:datagram_lost(3000) then lost_big = lost_big + 1 end   -- 3 fragments
    end
    assert.is_true(math.abs(lost_small / 4000 - 0.1) < 0.03)
    assert.is_true(math.abs(lost_big / 4000 - (1 - 0.9 ^ 3)) < 0.03)
  end)

  it("holds a partition between groups from `at` until `until`", function()
    local t = 100
    platform.now = function() return t end
    netem:init({ delay = 0, partitions = { { at = 5, ["until"] = 10, groups = { 0, 0, 1 } } } }, 1, nodes, 1, 100)
    assert.is_false(netem:partitioned(3))
    t = 106
    assert.is_true(netem:partitioned(3))
    assert.is_false(netem:partitioned(2))
    t = 110
    assert.is_false(netem:partitioned(3))
  end)

  it("follows a churn script's loss and latency phases", function()
    local t = 100
    platform.now = function() return t end
    netem:init({ delay = { 0, 0.02, 0.1 }, loss = 0.01, phases = {
      { at = 10, loss = 0.5, latency = 2 }, { at = 20, latency = 0.5 }, { at = 30 } } }, 1, nodes, 1, 100)
    assert.equal(0.02, netem:delay(2))                -- before the first phase: the model
    t = 115
    assert.equal(0.04, netem:delay(2))
    assert.equal(0.4, netem:rtt(3))
    local lost = 0
    for _ = 1, 4000 do if netem:datagram_lost(100) then lost = lost + 1 end end
    assert.is_true(math.abs(lost / 4000 - 0.5) < 0.03)
    t = 125                                            -- loss back to the job's, latency halved
    assert.equal(0.01, netem:delay(2))
    lost = 0
    for _ = 1, 4000 do if netem:datagram_lost(100) then lost = lost + 1 end end
    assert.is_true(lost / 4000 < 0.03)
    t = 135
    assert.equal(0.02, netem:delay(2))
  end)

  it("spaces messages by the bandwidth after a burst of one MTU", function()
    local t = 0
    platform.now = function() return t end
    netem:init({ delay = 0, bandwidth = 1000, mtu = 100 }, 1, nodes, 1, 0)
    assert.equal(0, netem:serialize(100))          -- the burst
    assert.is_true(math.abs(netem:serialize(100) - 0.1) < 1e-9)
    assert.is_true(math.abs(netem:serialize(500) - 0.6) < 1e-9)
  end)
end)
