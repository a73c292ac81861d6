local events = require "splaylab.events"
local rpc = require "splaylab.rpc"
local urpc = require "splaylab.urpc"
local benc = require "splaylab.benc"
local H = require "helpers"

for _, case in ipairs({ { "splaylab.rpc", rpc }, { "splaylab.urpc", urpc } }) do
  local name, mod = case[1], case[2]
  describe(name, function()
    local saved_exit = events.on_exit
    setup(function() events.on_exit = function() end end)
    teardown(function() events.on_exit = saved_exit end)
    before_each(function() H.capture() end)
    after_each(H.restore)

    it("calls the app's global functions and variables by name, in every form", function()
      local port = H.free_port()
      H.net_node(port, {})
      rpc.settings.env = {
        add = function(a, b) return a + b, "sum" end,
        echo = function(...) return ... end,
        fails = function() error("boom", 0) end,
        value = { id = 7 },
        ns = { f = function() return "dotted" end },
      }
      local node = { ip = "127.0.0.1", port = port }
      local r = {}
      events.run(function()
        assert.is_true(mod.server(port))
        r.call = { mod.call(node, { "add", 1, 2 }) }
        r.ipport = { mod.call("127.0.0.1", port, { "add", 3, 4 }, 5) }
        r.var = mod.call(node, "value")
        r.missing_var = { mod.call(node, "nothing") }
        r.holes = { mod.call(node, { "echo", nil, 2, nil }) }
        r.dotted = mod.call(node, "ns.f")
        r.acall = { mod.acall(node, { "add", 1, 1 }) }
        r.a_call = { mod.a_call(node, { "fails" }) }
        r.a = { mod.a.call(node, { "nofunc", 1 }) }
        r.ecall = { pcall(mod.ecall, node, { "fails" }) }
        r.ping = mod.ping(node)
        r.proxy = mod.proxy(node):add(5, 6)
        events.exit()
      end)
      assert.same({ 3, "sum" }, r.call)
      assert.same({ 7, "sum" }, r.ipport)
      assert.same({ id = 7 }, r.var)
      assert.same({}, r.missing_var)
      assert.same({ nil, 2, nil }, r.holes)
      assert.equal("dotted", r.dotted)
      assert.same({ true, { 2, "sum", n = 2 } }, r.acall)
      assert.same({ false, "remote error: boom" }, r.a_call)
      assert.is_false(r.a[1])
      assert.truthy(r.a[2]:find("no function 'nofunc'", 1, true))
      assert.is_false(r.ecall[1])
      assert.is_number(r.ping)
      assert.equal(11, r.proxy)
    end)

    it("fails with nil, err when nobody answers, within the timeout", function()
      local port = H.free_port()
      H.net_node(port, {})
      local res, elapsed
      events.run(function()
        local t0 = require("splaylab.platform").now()
        res = { mod.call({ ip = "127.0.0.1", port = port }, "x", 0.3) }
        elapsed = require("splaylab.platform").now() - t0
      end)
      assert.is_nil(res[1])
      assert.is_string(res[2])
      assert.is_true(elapsed < 1)
    end)
  end)
end

describe("splaylab.rpc policy", function()
  it("inherits the socket policy: no call outside the job", function()
    H.capture()
    H.net_node(H.free_port(), {})
    local res
    events.run(function() res = { rpc.call({ ip = "127.0.0.1", port = 1 }, "x", 1) } end)
    H.restore()
    assert.same({ nil, "rpc to 127.0.0.1:1 failed: connect to 127.0.0.1:1 denied: not a node of this job" }, res)
  end)
end)

describe("splaylab.rpc connection reuse", function()
  local net = require "splaylab.net"
  local llenc = require "splaylab.llenc"
  local platform = require "splaylab.platform"
  local saved_exit, saved_keep = events.on_exit, rpc.settings.keep_alive
  setup(function() events.on_exit = function() end end)
  teardown(function() events.on_exit = saved_exit end)
  before_each(function() H.capture() end)
  after_each(function() H.restore(); rpc.settings.keep_alive = saved_keep end)

  -- A server speaking rpc's wire that counts connections; it serves `per_conn` requests on a
  -- connection, then closes it (an idle timeout or a restart, as the client sees it).
  local function counting_server(port, per_conn)
    local stats = { accepted = 0, served = 0, closed = 0 }
    assert(net.server(port, function(c)
      stats.accepted = stats.accepted + 1
      for _ = 1, per_conn do
        local msg = llenc.receive(c)
        if not msg then break end
        stats.served = stats.served + 1
        local req = benc.decode(msg)
        llenc.send(c, benc.encode({ ok = true, r = { req.call[2] }, n = 1 }))
      end
      stats.closed = stats.closed + 1
    end))
    return stats
  end

  -- The client's read after its request waits for the socket first (await_first): a server that
  -- answers nothing, garbage or half a frame must still end the call with its error, within the
  -- call's timeout, and leave the next call to a well-behaved server unharmed.
  it("fails a call cleanly against a server that stays silent, sends garbage or half a frame", function()
    local ports = { silent = H.free_port(), garbage = H.free_port(), half = H.free_port(),
      good = H.free_port() }
    H.net_node(ports.silent, { ports.garbage, ports.half, ports.good },
      { bind_ports = { ports.garbage, ports.half, ports.good } })
    local function serve(port, answer)
      assert(net.server(port, function(c)
        while llenc.receive(c) do
          if answer then answer(c) else events.sleep(5) end
        end
      end))
    end
    local res = {}
    events.run(function()
      serve(ports.silent, nil)
      serve(ports.garbage, function(c) c:send("\0\255\254 not a frame\n") end)
      serve(ports.half, function(c) c:send("100\nd2:ok"); c:close() end)
      counting_server(ports.good, math.huge)
      for _, which in ipairs({ "silent", "garbage", "half", "good" }) do
        local t0 = platform.now()
        local r = { rpc.call({ ip = "127.0.0.1", port = ports[which] }, { "echo", which }, 0.3) }
        res[which] = { r[1], r[2], platform.now() - t0 }
      end
      events.exit()
    end)
    assert.is_nil(res.silent[1])
    assert.matches("timeout", res.silent[2])
    assert.is_true(res.silent[3] >= 0.25 and res.silent[3] < 1, "took " .. res.silent[3])
    assert.is_nil(res.garbage[1])
    assert.matches("rpc to 127.0.0.1:%d+ failed: rpc: bad reply frame", res.garbage[2])
    assert.is_nil(res.half[1])
    assert.matches("rpc to 127.0.0.1:%d+ failed: closed", res.half[2])
    assert.equal("good", res.good[1])
    for _, which in ipairs({ "garbage", "half", "good" }) do
      assert.is_true(res[which][3] < 0.25, which .. " took " .. res[which][3])
    end
  end)

  it("carries consecutive calls to a node on one connection; keep_alive = 0 opens one per call", function()
    local port, port2 = H.free_port(), H.free_port()
    H.net_node(port, { port2 }, { bind_ports = { port2 } })
    local kept, per_call, results = nil, nil, {}
    events.run(function()
      local stats, stats2 = counting_server(port, math.huge), counting_server(port2, math.huge)
      for i = 1, 3 do results[#results + 1] = rpc.call({ ip = "127.0.0.1", port = port }, { "echo", i }) end
      kept = stats.accepted
      rpc.settings.keep_alive = 0
      for i = 4, 6 do results[#results + 1] = rpc.call({ ip = "127.0.0.1", port = port2 }, { "echo", i }) end
      per_call = stats2.accepted
      events.exit()
    end)
    assert.same({ 1, 2, 3, 4, 5, 6 }, results)
    assert.equal(1, kept)
    assert.equal(3, per_call)
  end)

  it("retries once on a new connection when the kept one was closed by the peer", function()
    local port = H.free_port()
    H.net_node(port, {})
    local node = { ip = "127.0.0.1", port = port }
    local stats, results = nil, {}
    events.run(function()
      stats = counting_server(port, 1)     -- closes after every reply
      for i = 1, 4 do
        results[#results + 1] = rpc.call(node, { "echo", i })
        events.sleep(0.05)                 -- let the server's close reach us
      end
      events.exit()
    end)
    assert.same({ 1, 2, 3, 4 }, results)
    assert.equal(4, stats.served)          -- each call served once: no request ran twice
    assert.equal(4, stats.accepted)
  end)

  it("closes a kept connection after keep_alive seconds idle", function()
    local port = H.free_port()
    H.net_node(port, {})
    rpc.settings.keep_alive = 0.2
    local stats, closed_before, closed_after
    events.run(function()
      stats = counting_server(port, math.huge)
      assert.equal("x", rpc.call({ ip = "127.0.0.1", port = port }, { "echo", "x" }))
      events.sleep(0.05)
      closed_before = stats.closed
      local t0 = platform.now()
      while stats.closed == 0 and platform.now() - t0 < 2 do events.sleep(0.05) end
      closed_after = stats.closed
      events.exit()
    end)
    assert.equal(0, closed_before)
    assert.equal(1, closed_after)
  end)
end)

describe("splaylab.rpc.dispatch", function()
  local saved_env
  before_each(function() saved_env = rpc.settings.env end)
  after_each(function() rpc.settings.env = saved_env end)

  -- the reply's r is walked by pairs into the wire (benc) or the fast path's copy: with holes
  -- in the results it must be the table the loop r[i] = result i builds, in its pairs order
  it("returns the results as the assignment loop builds them, holes included", function()
    local cases = { {}, { 1 }, { 1, 2, 3 }, { nil, 5 }, { nil, 5, 6 }, { 1, nil, 3, nil, nil, 6, 7 },
      { nil, nil, nil, nil, 9 }, { "a", nil, { x = 1 }, nil } }
    for i, results in ipairs(cases) do
      local n = table.maxn(results) + (i == #cases and 1 or 0)   -- the last ends with a nil result
      rpc.settings.env = { f = function() return unpack(results, 1, n) end }
      local reply = rpc.dispatch({ "f" }, 1, "rpc")
      local loop = {}
      for j = 1, n do loop[j] = results[j] end
      assert.equal(n, reply.n)
      local order, expected = {}, {}
      for k in pairs(reply.r) do order[#order + 1] = k end
      for k in pairs(loop) do expected[#expected + 1] = k end
      assert.same(expected, order, "case " .. i)
      assert.equal(benc.encode({ ok = true, r = loop, n = n }), benc.encode(reply), "case " .. i)
    end
  end)

  it("finds plain and dotted names, and answers a global's value to a call without arguments", function()
    local env = { f = function(a) return a end, ns = { g = function() return "g" end }, v = 3 }
    rpc.settings.env = env
    assert.same({ ok = true, r = { 4 }, n = 1 }, rpc.dispatch({ "f", 4 }, 2, "rpc"))
    assert.same({ ok = true, r = { "g" }, n = 1 }, rpc.dispatch({ "ns.g" }, 1, "rpc"))
    assert.same({ ok = true, r = { "g" }, n = 1 }, rpc.dispatch({ ".ns..g" }, 1, "rpc"))
    assert.same({ ok = true, r = { 3 }, n = 1 }, rpc.dispatch({ "v" }, 1, "rpc"))
    assert.equal(env, rpc.dispatch({ "" }, 1, "rpc").r[1])   -- no part: the environment itself (as before)
    assert.same({ ok = false, err = "rpc: no function 'v' on this node" }, rpc.dispatch({ "v", 1 }, 2, "rpc"))
    assert.same({ ok = false, err = "rpc: no function 'v.x' on this node" }, rpc.dispatch({ "v.x", 1 }, 2, "rpc"))
  end)
end)
