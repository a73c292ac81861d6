local trace = require "splaylab.trace"
local boot = require "splaylab.boot"
local cjson = require "cjson"

-- The lines trace.init's write receives, decoded.
local function collector()
  local lines = {}
  return lines, function(line) lines[#lines + 1] = line end
end

local function rows_of(lines)
  local rows = {}
  for _, line in ipairs(lines) do
    for _, row in ipairs(cjson.decode(line).rows) do rows[#rows + 1] = row end
  end
  return rows
end

local NODES = { { ip = "127.0.0.1", port = 7000 }, { ip = "127.0.0.1", port = 7001 },
  { ip = "127.0.0.1", port = 7002 } }

-- operations run in a thread: this runs f in a coroutine of its own (errors come out)
local function in_thread(f) coroutine.wrap(f)() end

describe("splaylab.trace", function()
  after_each(function() trace:init { enabled = false } end)

  it("writes nothing when off, and rows of 11 columns when on", function()
    local lines, write = collector()
    trace:init { enabled = false, write = write, position = 1, job_nodes = NODES }
    trace:row(1, "call", 2, "f", 10, 20, "ok", "", 1, 0.5)
    trace:flush()
    assert.equal(0, #lines)
    trace:init { enabled = true, write = write, position = 1, job_nodes = NODES }
    trace:row(1, "call", 2, "f", 10, 20, "ok", "", 1, 0.5)
    trace:flush()
    assert.same({ { 1, "call", 2, "f", 10, 20, "ok", "", 1, 0.5, 1 } }, rows_of(lines))
  end)

  it("names peers by position when the address is one of the job's", function()
    trace:init { enabled = true, write = function() end, position = 1, job_nodes = NODES }
    assert.equal(3, trace:peer("127.0.0.1", 7002))
    assert.equal("10.0.0.9:80", trace:peer("10.0.0.9", 80))
    assert.equal(0, trace:peer(nil))
  end)

  it("escapes names the app chose, as JSON", function()
    local lines, write = collector()
    trace:init { enabled = true, write = write, position = 1, job_nodes = NODES }
    local odd = 'a"b\\c\n\0\255'
    trace:row(1, "call", "host\"x:1", odd, 1, 1, "ok", "", 1, 0)
    trace:flush()
    local row = rows_of(lines)[1]
    assert.equal(odd, row[4])
    assert.equal('host"x:1', row[3])
  end)

  it("keeps every line under 4,000 bytes, however long the names", function()
    local lines, write = collector()
    trace:init { enabled = true, write = write, position = 1, job_nodes = NODES }
    for i = 1, 500 do trace:row(i, "call", 2, string.rep("x", 200), i, i, "ok", "", 1, 0) end
    trace:flush()
    assert.equal(500, #rows_of(lines))
    for _, line in ipairs(lines) do assert.is_true(#line < 4000, #line) end
    assert.equal(64, #rows_of(lines)[1][4])   -- names are cut at 64 bytes
  end)

  it("fills each line with as many rows as fit in 3,900 bytes, in order, none lost", function()
    local lines, write = collector()
    trace:init { enabled = true, write = write, position = 1, job_nodes = NODES }
    -- the rows' text as docs/trace.md gives it, and lines split the way the runtime always did:
    -- a line goes out before a row that would take it (its rows, a comma each, 16 bytes) past 3,900
    local ROW = '[%.6f,"%s",%s,%s,%d,%d,"%s","%s",%d,%.6f,%d]'
    local expected, rows, size = {}, {}, 0
    local function out() expected[#expected + 1] = '{"rows":[' .. table.concat(rows, ",") .. "]}" end
    for i = 1, 2000 do
      local name = string.rep(string.char(97 + i % 26), 1 + (i * 7) % 64)
      local text = ROW:format(i / 7, "call", string.format("%d", i % 3 + 1), '"' .. name .. '"', i, 2 * i,
        "ok", "", i % 4, i / 1000, 1)
      trace:row(i / 7, "call", i % 3 + 1, name, i, 2 * i, "ok", "", i % 4, i / 1000)
      if #rows > 0 and size + #text + 16 > 3900 then out(); rows, size = {}, 0 end
      rows[#rows + 1], size = text, size + #text + 1
      if i == 1000 then trace:flush(); out(); rows, size = {}, 0 end   -- a flush mid-way
    end
    trace:flush()
    out()
    assert.is_true(#expected > 40)
    assert.same(expected, lines)
  end)

  it("past max_events writes one capped row, then aggregates with exact sums", function()
    local lines, write = collector()
    trace:init { enabled = true, max_events = 3, write = write, position = 1, job_nodes = NODES }
    for i = 1, 10 do trace:row(i, "call", 2, "f", 5, 7, "ok", "1:0:1", 1, 0.25) end
    trace:row(11, "call", 3, "g", 1, 1, "timeout", "", 1, 1)
    trace:flush()
    local rows = rows_of(lines)
    local listed, capped, sums = 0, 0, { count = 0, out = 0, inb = 0, dur = 0 }
    for _, r in ipairs(rows) do
      if r[2] == "capped" then capped = capped + 1; assert.equal(3, r[11])
      elseif r[4] == "f" then
        if r[11] == 1 then listed = listed + 1 end
        sums.count, sums.out = sums.count + r[11], sums.out + r[5]
        sums.inb, sums.dur = sums.inb + r[6], sums.dur + r[10]
      end
    end
    assert.equal(1, capped)
    assert.equal(3, listed)
    assert.same({ count = 10, out = 50, inb = 70, dur = 2.5 }, sums)
  end)

  it("aggregates by type, peer, name, outcome and op: the earliest instant, the deepest call, per flush", function()
    local lines, write = collector()
    trace:init { enabled = true, max_events = 1, write = write, position = 1, job_nodes = NODES }
    trace:row(1, "call", 2, "f", 1, 1, "ok", "", 1, 0)                    -- listed
    trace:row(2, "call", 2, "f", 1, 2, "ok", "1:0:1", 2, 0.5)            -- aggregated from here
    trace:row(3, "call", 2, "f", 1, 2, "ok", "1:0:1", 5, 0.5)
    trace:row(4, "call", 2, "f", 1, 2, "ok", "1:0:1", 3, 0.5)
    trace:row(5, "call", 2, "f", 1, 2, "timeout", "1:0:1", 1, 1)          -- another outcome
    trace:row(6, "call", 3, "f", 1, 2, "ok", "1:0:1", 1, 1)               -- another peer
    trace:row(7, "send", nil, "", 9, 0, "ok", "", 0, 0)                   -- no peer
    trace:row(8, "send", nil, "", 9, 0, "ok", "", 0, 0)
    trace:flush()
    trace:row(20, "call", 2, "f", 4, 4, "ok", "1:0:1", 1, 0)              -- the next window
    trace:flush()
    local rows = rows_of(lines)
    local function pick(first, typ, peer, outcome)
      for _, r in ipairs(rows) do
        if r[1] == first and r[2] == typ and r[3] == peer and r[7] == outcome then return r end
      end
    end
    local deep = pick(2, "call", 2, "ok")
    assert.same({ 3, 6, 5, 1.5, 3 }, { deep[5], deep[6], deep[9], deep[10], deep[11] })
    assert.equal(1, pick(5, "call", 2, "timeout")[11])
    assert.equal(1, pick(6, "call", 3, "ok")[11])
    local sends = pick(7, "send", "nil", "ok")   -- (a missing peer is written "nil")
    assert.same({ 18, 2 }, { sends[5], sends[11] })
    local later = pick(20, "call", 2, "ok")   -- counts restart; the deepest call stays the row's
    assert.same({ 4, 4, 5, 1 }, { later[5], later[6], later[9], later[11] })
    assert.equal(7, #rows)   -- listed, capped, four aggregates, then the next window's one
  end)

  it("carries an operation through the threads a thread makes, and enter/restore for served calls", function()
    trace:init { enabled = true, write = function() end, position = 4, job_nodes = NODES }
    in_thread(function()
      local seen = {}
      local op, took, ok, value = trace:operation("lookup", function()
        seen.inside = trace:context()
        local child = trace:adopt(coroutine.create(function() seen.child = trace:context() end))
        coroutine.resume(child)
        return 42
      end)
      assert.truthy(op:match("^4:%d+:1$"))
      assert.is_true(ok)
      assert.equal(42, value)
      assert.is_true(took >= 0)
      assert.same({ op = op, depth = 0 }, seen.inside)
      assert.same(seen.inside, seen.child)
      assert.is_nil(trace:context())
      local saved = trace:enter({ op = "9:1:1", depth = 2 })
      assert.same({ op = "9:1:1", depth = 2 }, trace:context())
      assert.is_true(trace:served("9:1:1"))
      trace:leave(saved)
      assert.is_nil(trace:context())
      assert.is_false(trace:served("9:1:2"))
    end)
  end)

  it("reserves an operation's id before it runs", function()
    trace:init { enabled = true, write = function() end, position = 2, job_nodes = NODES }
    in_thread(function()
      local id = trace:reserve("broadcast")
      local op = trace:operation(id, function() end)
      assert.equal(id, op)
      assert.are_not.equal(id, trace:operation(id, function() end))   -- once only
    end)
  end)

  it("decodes only well-formed contexts from an envelope", function()
    assert.same({ op = "1:2:3", depth = 2, f = 0 }, trace:decode({ op = "1:2:3", depth = 2 }))
    assert.same({ op = "1:2:3", depth = 2, f = 7 }, trace:decode({ op = "1:2:3", depth = 2, f = 7 }))
    assert.is_nil(trace:decode({ op = 5, depth = 1 }))
    assert.is_nil(trace:decode({ op = "x", depth = -1 }))
    assert.is_nil(trace:decode({ op = string.rep("x", 100), depth = 1 }))
    assert.is_nil(trace:decode("1:2:3"))
  end)

  it("learns each peer a received message names once, within bounds", function()
    local lines, write = collector()
    trace:init { enabled = true, learn = false, write = write, position = 1, job_nodes = NODES }
    trace:learn({ { ip = "127.0.0.1", port = 7001 } })                  -- not asked to learn
    trace:flush()
    assert.equal(0, #lines)
    trace:init { enabled = true, learn = true, write = write, position = 1, job_nodes = NODES }
    trace:learn({ "shuffle", { { peer = { ip = "127.0.0.1", port = 7001 }, age = 3 } },
                  { ip = "127.0.0.1", port = 7002 } })
    trace:learn({ { ip = "127.0.0.1", port = 7001 } })                  -- already known
    trace:learn({ { ip = "127.0.0.1", port = 7000 } })                  -- itself
    trace:learn({ { { { { { ip = "127.0.0.1", port = 7002 } } } } } })  -- deeper than the walk goes
    trace:flush()
    local learned = {}
    for _, r in ipairs(rows_of(lines)) do
      assert.equal("learned", r[2])
      learned[#learned + 1] = r[3]
    end
    table.sort(learned)
    assert.same({ 2, 3 }, learned)
  end)
end)

describe("splaylab.boot.facade", function()
  it("copies a module without the runtime's hooks: writes to the copy change nothing else", function()
    local events = require "splaylab.events"
    local copy = boot.facade(events)
    assert.is_nil(copy.on_error)
    assert.is_nil(copy.on_exit)
    assert.equal(events.thread, copy.thread)
    local real = events.on_error
    copy.on_error = function() end
    copy.thread = function() end
    assert.equal(real, events.on_error)
    assert.are_not.equal(copy.thread, events.thread)
  end)
end)
