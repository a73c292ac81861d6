-- splaylab.sim.output_limits: the daemon's output limits on virtual time (the rule of
-- daemon/splayd/output_limits.py; sandbox/tests/test_output_limits.py compares whole runs).
local output_limits = require "splaylab.sim.output_limits"

local SPEC = { lines_per_second = 3, max_size = 1000, window = 1, rate_one = "log rate limit: 1 line dropped",
  rate_many = "log rate limit: %d lines dropped", budget_text = "log budget: job output limit of 1000 bytes reached, "
  .. "further output dropped", max_line = 4096, truncated_mark = " [line truncated at 4096 bytes]" }

-- A limiter whose records and timed actions are recorded; run(t) plays the actions due by t.
local function harness(spec)
  local sent, timers = {}, {}
  local limits = output_limits.new(spec, function(k, t, level, text) sent[#sent + 1] = { k, t, level, text } end,
    function(t, fn) timers[#timers + 1] = { t, fn } end)
  local function run(t)
    table.sort(timers, function(a, b) return a[1] < b[1] end)
    while timers[1] and timers[1][1] <= t do table.remove(timers, 1)[2]() end
  end
  return limits, sent, run
end

describe("sim.output_limits", function()
  it("keeps a window's first lines and reports the rest at the window's end", function()
    local limits, sent, run = harness(SPEC)
    local kept = 0
    for i = 1, 10 do
      if limits:admit(1, 0.25 + i / 1000, "print", "line " .. i) then kept = kept + 1 end
    end
    assert.equal(3, kept)
    run(1.2)
    assert.same({}, sent)
    run(1.3)
    assert.same({ { 1, 1.251, "limit", "rate\t7\tlog rate limit: 7 lines dropped" } }, sent)
  end)

  it("reports at the node's next line when it comes first, then opens a new window", function()
    local limits, sent, run = harness(SPEC)
    for _ = 1, 4 do limits:admit(2, 0, "info", "x") end
    assert.equal("x", limits:admit(2, 1, "info", "x"))
    assert.same({ { 2, 1, "limit", "rate\t1\tlog rate limit: 1 line dropped" } }, sent)
    run(5)   -- the window's timed action finds nothing more to say
    assert.equal(1, #sent)
  end)

  it("spends the job's budget once for every node, then drops silently", function()
    local limits, sent = harness({ max_size = 100, budget_text = "spent" })
    assert.truthy(limits:admit(1, 0, "print", ("a"):rep(60)))   -- 6 + 60 + 1 = 67 bytes
    assert.falsy(limits:admit(2, 0, "print", ("b"):rep(60)))
    assert.falsy(limits:admit(1, 5, "print", "c"))
    assert.same({ { 2, 0, "limit", "budget\t0\tspent" } }, sent)
  end)

  it("neither counts nor drops nor cuts measurement records", function()
    local limits, sent = harness(SPEC)
    local long = ("r"):rep(5000)
    for _ = 1, 10 do assert.equal(long, limits:admit(1, 0, "trace", long)) end
    assert.truthy(limits:admit(1, 0, "print", "counted"))
    assert.same({}, sent)
  end)

  it("cuts other lines at max_line bytes as the daemon does", function()
    local limits = harness({ max_line = 4096, truncated_mark = SPEC.truncated_mark })
    local text = limits:admit(1, 0, "print", ("y"):rep(5000))
    assert.equal(("y"):rep(4096 - 6) .. " [line truncated at 4096 bytes]", text)
  end)

  it("reports a pending count when the node's output ends, and starts afresh after", function()
    local limits, sent = harness(SPEC)
    for _ = 1, 5 do limits:admit(3, 0, "print", "x") end
    limits:close(3, 0.5)
    assert.same({ { 3, 0.5, "limit", "rate\t2\tlog rate limit: 2 lines dropped" } }, sent)
    assert.truthy(limits:admit(3, 0.6, "print", "a new session's line"))
  end)
end)
