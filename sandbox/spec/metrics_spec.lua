local metrics = require "splaylab.metrics"
local cjson = require "cjson"
local H = require "helpers"

describe("splaylab.metrics", function()
  local records
  before_each(function() records = H.capture() end)
  after_each(H.restore)

  it("writes observe and count as metric records of JSON", function()
    metrics.observe("latency", 0.25, { op = "lookup", hops = 3 })
    metrics.count("calls")
    metrics.count("bytes", 10)
    assert.equal(3, #records)
    for _, r in ipairs(records) do assert.equal("metric", r[1]) end
    assert.same({ name = "latency", value = 0.25, type = "observe", fields = { op = "lookup", hops = 3 } },
      cjson.decode(records[1][2]))
    assert.same({ name = "calls", value = 1, type = "count" }, cjson.decode(records[2][2]))
    assert.same({ name = "bytes", value = 10, type = "count" }, cjson.decode(records[3][2]))
  end)

  it("refuses bad names, values and fields", function()
    assert.has_error(function() metrics.observe("", 1) end)
    assert.has_error(function() metrics.observe("x", 0 / 0) end, "metrics: value must be a finite number")
    assert.has_error(function() metrics.observe("x", 1, { { 1 } }) end)
    assert.has_error(function() metrics.count(string.rep("n", 101)) end)
    assert.same({}, records)
  end)

  it("keeps a newline in a field inside one record", function()
    metrics.observe("x", 1, { note = "a\nb" })
    assert.equal(1, #records)
  end)
end)
