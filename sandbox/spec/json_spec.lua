local json = require "splaylab.json"

describe("splaylab.json", function()
  it("encodes and decodes", function()
    assert.same({ a = { 1, 2 }, b = "x" }, json.decode(json.encode({ a = { 1, 2 }, b = "x" })))
    assert.equal(json.null, json.decode("[null]")[1])
    assert.has_error(function() json.decode("{") end)
  end)
  it("encodes sparse arrays instead of failing", function()
    assert.is_string(json.encode({ [1] = 1, [100] = 2 }))
  end)
end)
