-- splaylab.sim.vnet: the simulator's in-process TCP and UDP, with LuaSocket's non-blocking
-- answers as splaylab.socket expects them (docs/simulation.md).
local vnet = require "splaylab.sim.vnet"

describe("sim.vnet", function()
  local net, woken
  before_each(function()
    woken = {}
    net = vnet.new(function(owner, sock) woken[#woken + 1] = { owner, sock } end)
  end)

  local function pair()
    local l = net:tcp("B", "10.0.0.2")
    assert.equal(1, l:bind("10.0.0.2", 20000))
    assert.equal(1, l:listen())
    local c = net:tcp("A", "10.0.0.1")
    assert.equal(1, c:connect("10.0.0.2", 20000))
    local s = assert(l:accept())
    return c, s, l
  end

  it("connects to a listener, wakes its owner, and refuses where nobody listens", function()
    local l = net:tcp("B", "10.0.0.2")
    l:bind("*", 20000); l:listen()
    assert.same({ nil, "timeout" }, { l:accept() })
    local c = net:tcp("A", "10.0.0.1")
    assert.equal(1, c:connect("10.0.0.2", 20000))
    assert.equal("B", woken[1][1])
    assert.is_true(l:readable())
    local s = l:accept()
    assert.same({ "10.0.0.1", c.port }, { s:getpeername() })
    assert.same({ nil, "connection refused" }, { net:tcp("A", "10.0.0.1"):connect("10.0.0.3", 1) })
    assert.same({ nil, "already connected" }, { c:connect("10.0.0.2", 20000) })
  end)

  it("streams bytes: lines, sizes and partial reads consumed as LuaSocket does", function()
    local c, s = pair()
    assert.equal(5, c:send("hello"))
    assert.equal(4, c:send("xabcx", 2, 4))  -- the index of the last byte sent
    assert.same({ nil, "timeout", "helloabc" }, { s:receive("*l") })  -- no newline yet
    c:send("de\r\nfg")
    assert.equal("de", s:receive("*l"))
    assert.same({ nil, "timeout", "fg" }, { s:receive(4) })
    c:send("1234")
    assert.equal("12", s:receive(2))
    assert.equal("p34", s:receive(2, "p"))  -- the prefix comes first
    assert.is_false(s:readable())
  end)

  it("tells the reader when the writer closes: *a returns the rest, then closed", function()
    local c, s = pair()
    c:send("tail")
    c:close()
    assert.is_true(s:readable())
    assert.equal("tail", s:receive("*a"))
    assert.same({ nil, "closed", "" }, { s:receive("*l") })
    assert.same({ nil, "closed", 0 }, { c:send("x") })
  end)

  it("closes every socket of a node that ends; its port can be bound again", function()
    local c, s, l = pair()
    net:close_owner("B")
    assert.equal("closed", s.state)
    assert.equal("closed", l.state)
    assert.is_true(c:readable())
    assert.same({ nil, "closed", "" }, { c:receive(1) })
    local again = net:tcp("B", "10.0.0.2")
    assert.equal(1, again:bind("10.0.0.2", 20000))
  end)

  it("carries datagrams to a bound UDP socket with the sender's address; lost when none", function()
    local b = net:udp("B", "10.0.0.2")
    assert.equal(1, b:setsockname("*", 30000))
    local a = net:udp("A", "10.0.0.1")
    assert.equal(4, a:sendto("ping", "10.0.0.2", 30000))
    assert.equal(4, a:sendto("lost", "10.0.0.9", 30000))
    assert.is_true(b:readable())
    local data, ip, port = b:receivefrom()
    assert.same({ "ping", "10.0.0.1", a.port }, { data, ip, port })
    assert.same({ nil, "timeout" }, { b:receive() })
    a:setpeername("10.0.0.2", 30000)
    a:send("abcdef")
    assert.equal("abc", b:receive(3))  -- a datagram's rest is dropped, as with a real socket
    b:close()
    assert.same({ nil, "closed" }, { b:receive() })
  end)
end)
