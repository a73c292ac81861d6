-- splaylab.sim.world: each node of a simulation gets its own instance of the runtime's modules
-- and its own random numbers (the groundwork of the simulator, docs/simulation.md).
local world = require "splaylab.sim.world"

describe("sim.world", function()
  setup(function() world.init("lib") end)

  it("gives every node its own instance of a module, from one compiled factory", function()
    local a, b = world.new({}, 1), world.new({}, 2)
    local qa, qb = a.require("splaylab.queue"), b.require("splaylab.queue")
    assert.are_not.equal(qa, qb)
    assert.equal(qa, a.require("splaylab.queue"))  -- cached per node
    -- a module's state is the node's: events threads of one node are not the other's
    local ea, eb = a.require("splaylab.events"), b.require("splaylab.events")
    assert.are_not.equal(ea, eb)
    assert.equal(ea, a.require("splaylab.events"))
  end)

  it("shares stateless C modules", function()
    local a, b = world.new({}, 1), world.new({}, 2)
    assert.equal(a.require("cjson"), b.require("cjson"))
  end)

  it("hands a preset module (the node's platform) to every module of that node", function()
    local platform = { identity = { position = 7 }, now = function() return 42 end }
    local w = world.new({ ["splaylab.platform"] = platform }, 1)
    assert.equal(42, w.require("splaylab.misc").time())
  end)

  it("draws each node's random numbers from its own generator, reproducibly", function()
    local function draws(w, n)
      local out = {}
      for i = 1, n do out[i] = w.math.random(1000) end
      return table.concat(out, " ")
    end
    local a1, a2, b = world.new({}, 5), world.new({}, 5), world.new({}, 6)
    local before = math.random()
    assert.equal(draws(a1, 20), draws(a2, 20))
    assert.are_not.equal(draws(world.new({}, 5), 20), draws(b, 20))
    -- another node's draws do not move this one's sequence
    local c, d = world.new({}, 9), world.new({}, 9)
    local seq_c = {}
    for i = 1, 5 do seq_c[i] = c.math.random(); world.new({}, 3).math.random() end
    for i = 1, 5 do assert.equal(seq_c[i], d.math.random()) end
    assert.is_number(before)
  end)

  it("keeps math.random's forms and errors", function()
    local m = world.new_math(1)
    for _ = 1, 200 do
      local r, k, j = m.random(), m.random(6), m.random(-3, 3)
      assert.is_true(r >= 0 and r < 1 and k >= 1 and k <= 6 and j >= -3 and j <= 3 and k % 1 == 0)
    end
    assert.has_error(function() m.random("x") end, "bad argument #1 to 'random' (number expected, got string)")
    m.randomseed(3)
    local x = m.random()
    m.randomseed(3)
    assert.equal(x, m.random())
  end)

  it("draws exactly what LuaJIT's math.random draws after the same randomseed (live = simulated)", function()
    -- the seeds node.lua gives (platform.random_seed: seed * 7919 + position * 104729), and others
    for _, seed in ipairs({ 0, 1, 42, 7919 + 104729 * 17, 2147483646, 0.5, -3 }) do
      local m = world.new_math(seed)
      math.randomseed(seed)
      for i = 1, 3000 do
        local live, simulated
        if i % 3 == 0 then live, simulated = math.random(), m.random()
        elseif i % 3 == 1 then live, simulated = math.random(1000), m.random(1000)
        else live, simulated = math.random(-5, 2 ^ 24), m.random(-5, 2 ^ 24) end
        assert.equal(live, simulated)
      end
    end
    -- LuaJIT does not check the interval: neither does a simulated node
    local m = world.new_math(8)
    math.randomseed(8)
    assert.equal(math.random(5, 1), m.random(5, 1))
  end)
end)
