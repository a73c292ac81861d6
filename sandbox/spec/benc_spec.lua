local benc = require "splaylab.benc"

describe("splaylab.benc", function()
  it("round-trips every value RPC carries, holes and nested tables included", function()
    local v = { "a", nil, 3, 1.5, -7, true, false, { x = { y = "z\0bin" } }, [2.5] = "f", n = 9 }
    local back = benc.decode(benc.encode(v))
    assert.same(v, back)
    assert.equal(1 / 0, benc.decode(benc.encode(1 / 0)))
    assert.is_nil(benc.decode(benc.encode(nil)))
    assert.equal(2 ^ 60, benc.decode(benc.encode(2 ^ 60)))
  end)

  it("refuses functions, cycles and malformed input", function()
    assert.has_error(function() benc.encode(print) end, "benc: cannot encode a function")
    local t = {}; t.self = t
    assert.has_error(function() benc.encode(t) end, "benc: cannot encode a table with cycles")
    assert.has_error(function() benc.decode("d1:a") end)
    assert.has_error(function() benc.decode("5:ab") end)
    assert.has_error(function() benc.decode("i1ei2e") end)
    assert.has_error(function() benc.decode(string.rep("d", 500)) end, "benc: table nested too deeply")
  end)
end)
