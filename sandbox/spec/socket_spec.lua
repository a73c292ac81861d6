local events = require "splaylab.events"
local H = require "helpers"

describe("splaylab.socket", function()
  local saved_exit = events.on_exit
  local records
  setup(function() events.on_exit = function() end end)
  teardown(function() events.on_exit = saved_exit end)
  before_each(function() records = H.capture() end)
  after_each(H.restore)

  it("serves and connects cooperatively: receive patterns, sizes and *a", function()
    local port = H.free_port()
    local sock = H.net_node(port, {})
    local got = {}
    events.run(function()
      local srv = assert(sock.bind("*", port))
      events.thread(function()
        local c = srv:accept()
        c:send("line one\r\nabcdefgh rest")
        events.sleep(0.02)
        c:send(" and more")
        c:close()
      end)
      local c = assert(sock.connect("127.0.0.1", port))
      c:settimeout(2)
      got[1] = c:receive("*l")
      got[2] = c:receive(4)
      got[3] = c:receive(4, "pre-")
      got[4] = c:receive("*a")
      got[5] = { c:getpeername() }
      c:close()
      srv:close()
    end)
    assert.same({ "line one", "abcd", "pre-efgh", " rest and more", { "127.0.0.1", port, "inet" } }, got)
    assert.equal(0, sock.stats.sockets)
  end)

  it("times out a receive without blocking other threads", function()
    local port = H.free_port()
    local sock = H.net_node(port, {})
    local res, ticks = nil, 0
    events.run(function()
      local srv = assert(sock.bind("127.0.0.1", port))
      events.thread(function() for _ = 1, 5 do ticks = ticks + 1; events.sleep(0.01) end end)
      local c = assert(sock.connect("127.0.0.1", port))
      c:settimeout(0.1)
      res = { c:receive() }
      c:close(); srv:close()
    end)
    assert.same({ nil, "timeout", "" }, res)
    assert.equal(5, ticks)
  end)

  it("denies connect outside the job with the student's message and a warning", function()
    local sock = H.net_node(H.free_port(), {})
    local s, err = sock.connect("127.0.0.1", 5432)
    assert.is_nil(s)
    assert.equal("connect to 127.0.0.1:5432 denied: not a node of this job", err)
    assert.same({ "warning", "[splay.socket] connect to 127.0.0.1:5432 denied: not a node of this job" }, records[1])
    local u = sock.udp()
    assert.same({ nil, "send to 10.0.0.1:53 denied: not a node of this job" }, { u:sendto("x", "10.0.0.1", 53) })
    u:close()
  end)

  it("allows connect to an allow-listed endpoint", function()
    local port = H.free_port()
    local sock = H.net_node(H.free_port(), {}, { allow = { "127.0.0.1:" .. port } })
    local s, err = sock.connect("127.0.0.1", port)   -- allowed, but nobody listens
    assert.is_nil(s)
    assert.equal("connection refused", err)
  end)

  it("binds only the instance's ports", function()
    local port = H.free_port()
    local sock = H.net_node(port, {}, { nb_ports = 2, bind_ports = { port + 5 } })
    local s, err = sock.bind("*", port + 2)
    assert.is_nil(s)
    assert.equal(string.format("bind to port %d denied: outside this instance's ports (%d-%d)",
      port + 2, port, port + 1), err)
    local u = sock.udp()
    assert.is_nil((u:setsockname("*", 80)))
    u:close()
    assert.equal(0, sock.stats.sockets)
  end)

  it("limits the number of sockets", function()
    local sock = H.net_node(H.free_port(), {}, { max_sockets = 2 })
    local a, b = sock.udp(), sock.tcp()
    local c, err = sock.tcp()
    assert.is_nil(c)
    assert.equal("too many sockets: network_max_sockets = 2", err)
    a:close(); b:close()
    assert.truthy(sock.udp())
  end)

  it("enforces the send and receive budgets and drops UDP on request", function()
    local port = H.free_port()
    local sock = H.net_node(port, { port }, { max_send = 10, max_receive = 1000 })
    local u = sock.udp()
    assert.equal(1, (u:sendto("x", "127.0.0.1", port)))
    assert.same({ nil, "send budget exhausted: network_max_send = 10 bytes" },
      { u:sendto(string.rep("y", 10), "127.0.0.1", port) })
    u:close()
    sock = H.net_node(port, { port }, { udp_drop_ratio = 1 })
    local r, s = sock.udp(), sock.udp()
    assert(r:setsockname("127.0.0.1", port))
    assert.equal(5, s:sendto("hello", "127.0.0.1", port))
    assert.equal(1, sock.stats.dropped)
    r:settimeout(0.05)
    assert.same({ nil, "timeout" }, { r:receivefrom() })
    r:close(); s:close()
  end)

  it("never hands out the raw LuaSocket object", function()
    local sock = H.net_node(H.free_port(), {})
    local t = sock.tcp()
    for k, v in pairs(t) do assert.is_false(type(v) == "userdata", k) end
    assert.is_nil(sock.public().init)
    t:close()
  end)
  describe("the controller's blacklist (deny)", function()
    it("refuses a job node and an allow-listed endpoint that are blacklisted, with a warning", function()
      local me, peer = H.free_port(), H.free_port()
      local sock = H.net_node(me, { peer }, { allow = { "10.9.9.9:*" }, deny = { "127.0.0.1", "10.9.9.9" } })
      local s, err = sock.connect("127.0.0.1", peer)
      assert.is_nil(s)
      assert.equal("connect to 127.0.0.1:" .. peer .. " denied: blacklisted by the controller", err)
      assert.same({ "warning", "[splay.socket] connect to 127.0.0.1:" .. peer ..
        " denied: blacklisted by the controller" }, records[1])
      assert.same({ nil, "connect to 10.9.9.9:80 denied: blacklisted by the controller" },
        { sock.connect("10.9.9.9", 80) })
      assert.equal(0, sock.stats.sockets)
    end)

    it("matches CIDR networks for sendto and setpeername; other addresses keep the job's rules", function()
      local sock = H.net_node(H.free_port(), {}, { allow = { "192.168.7.200:53", "192.168.8.1:53" },
        deny = { "192.168.7.0/24", "bogus", "2001:db8::/32" } })
      local u = sock.udp()
      assert.same({ nil, "send to 192.168.7.200:53 denied: blacklisted by the controller" },
        { u:sendto("x", "192.168.7.200", 53) })
      assert.same({ nil, "connect to 192.168.7.1:9 denied: blacklisted by the controller" },
        { u:setpeername("192.168.7.1", 9) })
      assert.equal(1, u:setpeername("192.168.8.1", 53))   -- allowed, outside the /24
      u:close()
      assert.same({ nil, "send to 10.0.0.1:53 denied: not a node of this job" },
        { sock.udp():sendto("x", "10.0.0.1", 53) })
      assert.same({ base = 167772160, size = 256 }, sock.ipv4_network("10.0.0.77/24"))
      assert.same({ base = 0, size = 2 ^ 32 }, sock.ipv4_network("1.2.3.4/0"))
      assert.is_nil(sock.ipv4_network("10.0.0.256"))
    end)

    it("refuses to answer a blacklisted sender", function()
      local port = H.free_port()
      local sock = H.net_node(port, {}, { deny = { "127.0.0.0/8" } })
      local raw = require("socket").udp()
      local got
      events.run(function()
        local u = sock.udp()
        assert(u:setsockname("127.0.0.1", port))
        u:settimeout(2)
        raw:sendto("ping", "127.0.0.1", port)
        local data, ip, from = u:receivefrom()
        got = { data, { u:sendto("pong", ip, from) } }
        u:close()
      end)
      local _, from = raw:getsockname()
      raw:close()
      assert.equal("ping", got[1])
      assert.same({ nil, "send to 127.0.0.1:" .. from .. " denied: blacklisted by the controller" }, got[2])
    end)

    it("reaches the node from job.json's limits.connect_deny", function()
      local rc, recs = H.run_node([[
        local socket = require "splay.socket"
        local s, err = socket.connect("127.0.0.1", 20002)
        print(s, err)
      ]], 1, '{"me": {"ip": "127.0.0.1", "port": 20001}, "nodes": [{"ip": "127.0.0.1", "port": 20001}, ' ..
        '{"ip": "127.0.0.1", "port": 20002}], "position": 1, "job_id": 1, "duration": 30, ' ..
        '"limits": {"connect_deny": ["127.0.0.0/8"]}}')
      assert.equal(0, rc)
      assert.same({ "print", "nil\tconnect to 127.0.0.1:20002 denied: blacklisted by the controller" },
        recs[#recs])
      assert.truthy(H.texts(recs, "warning")[1]:find("denied: blacklisted by the controller", 1, true))
    end)
  end)
end)
