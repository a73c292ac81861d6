local events = require "splaylab.events"
local rpc = require "splaylab.rpc"
local urpc = require "splaylab.urpc"
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
