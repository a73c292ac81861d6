local log = require "splaylab.log"
local H = require "helpers"

describe("splaylab.log", function()
  local records
  before_each(function() records = H.capture(); log.global_level = 1 end)
  after_each(H.restore)

  it("maps every method to a record level and joins arguments with spaces", function()
    log.debug("d", 1); log.info("i"); log.notice("n"); log.warning("w"); log.warn("w2")
    log.error("e", nil); log.print("p", true)
    assert.same({
      { "debug", "d 1" }, { "info", "i" }, { "info", "n" }, { "warning", "w" },
      { "warning", "w2" }, { "error", "e nil" }, { "print", "p true" },
    }, records)
  end)

  it("filters by the global level", function()
    log.global_level = 3
    log.debug("no"); log.info("no"); log.warn("yes")
    assert.same({ { "warning", "yes" } }, records)
  end)

  describe("log.new(level, prefix)", function()
    it("returns a prefixed logger usable with ':' and '.'", function()
      local l = log.new(2, "[chord]")
      l:debug("hidden"); l:info("a", 1); l.warn("b")
      assert.same({ { "info", "[chord] a 1" }, { "warning", "[chord] b" } }, records)
    end)

    it("makes each method on its first use only, the same function after, write included", function()
      local l = log.new(1, "[p]")
      assert.is_nil(rawget(l, "info"))   -- an unused logger holds no closures
      local info = l.info
      assert.equal(info, l.info)
      assert.equal(info, rawget(l, "info"))
      info("dot"); l:write("w", 3); l.write("w2")
      assert.is_nil(l.nothing)
      assert.is_nil(rawget(l, "nothing"))
      l.level = 4   -- the logger's level read at each call
      l:info("hidden"); l:error("shown")
      assert.same({ { "info", "[p] dot" }, { "warning", "[p] w" }, { "print", "[p] w2" }, { "error", "[p] shown" } },
        records)
    end)
  end)

  it("accepts the module's functions called with ':' as chord_p.lua does (log:print)", function()
    log:print("p", 1); log:warning("w"); log:print(); log:write("x", 4)
    assert.same({ { "print", "p 1" }, { "warning", "w" }, { "print", "" }, { "error", "x" } }, records)
  end)

  it("supports log.write(msg, level) as cyclon.lua calls it", function()
    log.write("x", 4); log.write("y")
    assert.same({ { "error", "x" }, { "print", "y" } }, records)
  end)
end)
