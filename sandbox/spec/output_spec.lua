local output = require "splaylab.output"
local H = require "helpers"

describe("splaylab.output", function()
  local records
  before_each(function() records = H.capture() end)
  after_each(H.restore)

  it("writes one LEVEL<TAB>TEXT record", function()
    output.write("info", "hello")
    assert.same({ { "info", "hello" } }, records)
  end)

  describe("when the text holds newlines", function()
    it("starts a new record with the same level, so text cannot forge one", function()
      output.write("print", "a\nerror\tforged\n")
      assert.same({ { "print", "a" }, { "print", "error\tforged" }, { "print", "" } }, records)
    end)
  end)

  it("converts non-strings with tostring", function()
    output.write("debug", 42)
    assert.same({ { "debug", "42" } }, records)
  end)

  it("refuses unknown levels", function()
    assert.has_error(function() output.write("fatal", "x") end, "splaylab.output: unknown level fatal")
  end)

  describe("stream", function()
    it("buffers until a newline and flushes the rest on demand", function()
      local s = output.stream("print")
      s.write("ab")
      assert.same({}, records)
      s.write("c\nd")
      assert.same({ { "print", "abc" } }, records)
      s.flush()
      assert.same({ { "print", "abc" }, { "print", "d" } }, records)
    end)
  end)
end)
