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

  it("writes the format's exact bytes, whatever was encoded before (a refused or a large message)", function()
    assert.equal("0:", benc.encode(""))
    assert.equal("255:" .. string.rep("a", 255), benc.encode(string.rep("a", 255)))
    assert.equal("256:" .. string.rep("b", 256), benc.encode(string.rep("b", 256)))
    assert.equal("i3e", benc.encode(3))
    assert.equal("i-9007199254740991e", benc.encode(-(2 ^ 53 - 1)))
    assert.equal("r9007199254740992;", benc.encode(2 ^ 53))
    assert.equal("r1.5;", benc.encode(1.5))
    assert.equal("rnan;", benc.encode(0 / 0))
    assert.equal("r-inf;", benc.encode(-1 / 0))
    assert.equal("tfn", benc.encode(true) .. benc.encode(false) .. benc.encode(nil))
    assert.equal("de", benc.encode({}))
    assert.equal("di1e1:xi2edi1ei3eee", benc.encode({ "x", { 3 } }))
    assert.has_error(function() benc.encode({ 1, 2, 3, print }) end, "benc: cannot encode a function")
    assert.equal("di1ei1ee", benc.encode({ 1 }))   -- nothing of the refused message left
    local big = string.rep("z", 100000)
    assert.equal("100000:" .. big, benc.encode(big))
    assert.equal("1:z", benc.encode("z"))
  end)

  it("decodes the short cases and their neighbours alike (one digit, ten bytes)", function()
    assert.equal(0, benc.decode("i0e"))
    assert.equal(9, benc.decode("i9e"))
    assert.equal(10, benc.decode("i10e"))
    assert.equal(-3, benc.decode("i-3e"))
    assert.equal("", benc.decode("0:"))
    assert.equal("abcdefghi", benc.decode("9:abcdefghi"))
    assert.equal("abcdefghij", benc.decode("10:abcdefghij"))
    assert.same({ [1] = "x", n = 2 }, benc.decode("di1e1:x1:ni2ee"))
    assert.has_error(function() benc.decode("9:abc") end, "benc: truncated string at 1")
    assert.has_error(function() benc.decode("di1e3:ab") end, "benc: truncated string at 5")
    assert.has_error(function() benc.decode("i5") end, "benc: unterminated number at 1")
    assert.has_error(function() benc.decode("i5x") end, "benc: unterminated number at 1")
    assert.has_error(function() benc.decode("1:xy") end, "benc: trailing data at 4")
  end)

  it("refuses a peer's garbage with its own words, never a Lua error, and never reads past the end", function()
    -- what a hostile node can send: random bytes (NUL and invalid UTF-8 among them), and valid
    -- messages damaged by one byte or cut anywhere
    math.randomseed(11)
    local valid = {
      benc.encode({ call = { "echo", "x", 3, { ip = "10.0.0.1", port = 20001 } }, n = 4 }),
      benc.encode({ ok = true, r = { string.rep("\0\255", 20), 1.5, 0 / 0, false }, n = 4 }),
    }
    local inputs = {}
    for _ = 1, 2000 do
      local t = {}
      for i = 1, math.random(0, 40) do t[i] = string.char(math.random(0, 255)) end
      inputs[#inputs + 1] = table.concat(t)
    end
    for _, v in ipairs(valid) do
      for p = 1, #v do
        inputs[#inputs + 1] = v:sub(1, p - 1)                                        -- cut
        inputs[#inputs + 1] = v:sub(1, p - 1) .. string.char(math.random(0, 255)) .. v:sub(p + 1)
      end
    end
    inputs[#inputs + 1] = "999999999:x"   -- a length far past the message
    local refused = 0
    for _, s in ipairs(inputs) do
      local ok, err = pcall(benc.decode, s)
      if not ok then
        refused = refused + 1
        assert.is_string(err)
        assert.matches("^benc: ", err)
      end
    end
    assert.is_true(refused > 2000)
  end)
end)
