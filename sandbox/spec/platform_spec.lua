local platform = require "splaylab.platform"

describe("splaylab.platform", function()
  it("gives the clock, sleep and name resolution", function()
    local t0 = platform.now()
    platform.sleep(0.01)
    assert.is_true(platform.now() - t0 >= 0.009)
    assert.equal("127.0.0.1", platform.toip("127.0.0.1"))
    assert.equal("*", platform.toip("*"))
  end)

  it("seeds reproducibly from job.json's seed, differently per position", function()
    local saved = platform.identity
    platform.identity = { position = 1, seed = 42 }
    local a = platform.random_seed()
    platform.identity = { position = 2, seed = 42 }
    local b = platform.random_seed()
    platform.identity = { position = 1, seed = 42 }
    assert.equal(a, platform.random_seed())
    assert.are_not.equal(a, b)
    platform.identity = saved
  end)

  it("can be swapped in place by a simulator", function()
    local real_now = platform.now
    platform.install { now = function() return 1000 end }
    assert.equal(1000, require("splaylab.misc").time())
    platform.install { now = real_now }
    assert.is_true(platform.now() > 1000)
  end)
end)
