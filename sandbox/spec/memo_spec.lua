local memo = require "splaylab.memo"
local cjson = require "cjson"
local trace = require "splaylab.trace"

-- The memo is shared by every node of the simulator: its answers must be the functions' own,
-- whoever asked first, and two address indexes (two jobs, or a spec's trace.init) never mix.
describe("splaylab.memo", function()
  it("gives the pool key of an address, the same string every time", function()
    assert.equal("10.0.0.1:7000", memo.address_key("10.0.0.1", 7000))
    assert.equal(memo.address_key("10.0.0.1", 7000), memo.address_key("10.0.0.1", 7000))
    assert.equal("10.0.0.1:7001", memo.address_key("10.0.0.1", 7001))
    assert.equal("1:2", memo.address_key(1, 2))                      -- not kept, still answered
    assert.equal("10.0.0.1:nan", memo.address_key("10.0.0.1", 0 / 0):gsub("-", ""))
  end)

  it("answers each index for itself, even for the same address", function()
    local a = { ["10.0.0.1:7000"] = 1, ["10.0.0.2:7000"] = 2 }
    local b = { ["10.0.0.1:7000"] = 5 }
    assert.equal(1, memo.position(a, "10.0.0.1", 7000))
    assert.equal(5, memo.position(b, "10.0.0.1", 7000))
    assert.equal(1, memo.position(a, "10.0.0.1", 7000))             -- remembered, per index
    assert.equal("10.0.0.2:7000", memo.position(b, "10.0.0.2", 7000))   -- no node of b's job
    assert.equal(2, memo.position(a, "10.0.0.2", 7000))
    assert.equal("10.0.0.1:nil", memo.position(a, "10.0.0.1", nil))
    assert.equal("nan:7000", memo.position(a, 0 / 0, 7000):gsub("-", ""))
  end)

  it("stays bounded when an app makes up addresses without end, and still answers", function()
    local index = { ["10.0.0.1:7000"] = 1 }
    for port = 1, 70000 do
      assert.equal("10.9.9.9:" .. port, memo.position(index, "10.9.9.9", port))
      assert.equal("10.9.9.9:" .. port, memo.address_key("10.9.9.9", port))
    end
    assert.equal(1, memo.position(index, "10.0.0.1", 7000))
    collectgarbage("collect")
    local before = collectgarbage("count")
    for port = 70001, 140000 do
      memo.position(index, "10.9.9.9", port)
      memo.address_key("10.9.9.9", port)
    end
    collectgarbage("collect")
    -- each cache started again at 65,536 entries: what the second 70,000 addresses leave is
    -- a few thousand entries (~0.7 MB), not 70,000 more
    assert.is_true(collectgarbage("count") - before < 2 * 1024)   -- unbounded: ~5.8 MB
  end)

  it("writes a text as JSON as cjson does", function()
    for _, text in ipairs { "find_successor", 'say "hi"', "a\nb", "\0\1", "é", "" } do
      assert.same(text, cjson.decode(memo.json_string(text)))
      assert.equal(memo.json_string(text), memo.json_string(text))
    end
    assert.equal("12345", memo.decimal(12345))
    assert.equal("-3", memo.decimal(-3))
  end)

  it("serves trace.peer: positions from the job's nodes of whichever trace.init came last", function()
    trace:init { enabled = true, write = function() end, position = 1,
      job_nodes = { { ip = "127.0.0.1", port = 7000 }, { ip = "127.0.0.1", port = 7001 } } }
    assert.equal(2, trace:peer("127.0.0.1", 7001))
    trace:init { enabled = true, write = function() end, position = 1,
      job_nodes = { { ip = "127.0.0.1", port = 7001 }, { ip = "127.0.0.1", port = 7000 } } }
    assert.equal(1, trace:peer("127.0.0.1", 7001))
    trace:init { enabled = false }
  end)
end)
