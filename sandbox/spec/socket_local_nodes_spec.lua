-- The same-machine shortcut (issue 24; socket_policy "Same-machine shortcut"): a daemon behind
-- a router without port forwarding is listed at the router's address (here 203.0.113.7, a
-- documentation address nothing answers on); its own nodes still reach each other, over
-- 127.0.0.1, and the app sees only job addresses.
local events = require "splaylab.events"
local H = require "helpers"

describe("splaylab.socket between nodes of one daemon listed at a router's address", function()
  local saved_exit = events.on_exit
  local records
  setup(function() events.on_exit = function() end end)
  teardown(function() events.on_exit = saved_exit end)
  before_each(function() records = H.capture() end)
  after_each(H.restore)

  local ROUTER, ELSEWHERE = "203.0.113.7", "203.0.113.9"

  local function node(port, peer_port, opts)
    local sock = require "splaylab.socket"
    local me, peer = { ip = ROUTER, port = port }, { ip = ROUTER, port = peer_port }
    local init = { me = me, peers = { peer, { ip = ELSEWHERE, port = peer_port } },
      local_nodes = { me, peer } }
    for k, v in pairs(opts or {}) do init[k] = v end
    sock.init(init)
    return sock
  end

  it("connects to a node of its daemon over 127.0.0.1; getpeername names the job address", function()
    local port, peer_port = H.free_port(), H.free_port()
    local sock = node(port, peer_port)
    local peer = assert(require("socket").bind("127.0.0.1", peer_port))   -- the other node
    peer:settimeout(2)
    local c = assert(sock.tcp())
    c:settimeout(2)
    assert(c:connect(ROUTER, peer_port))
    local accepted = assert(peer:accept())
    assert(c:send("ping\n"))
    assert.equal("ping", accepted:receive("*l"))
    assert.same({ ROUTER, peer_port, "inet" }, { c:getpeername() })
    assert.equal(5, require("splaylab.socket").stats.sent)
    accepted:close(); c:close(); peer:close()
  end)

  it("binds its own job address (the router's) on every interface instead", function()
    local port, peer_port = H.free_port(), H.free_port()
    local sock = node(port, peer_port)
    local srv = assert(sock.bind(ROUTER, port))
    local ip, bound = srv:getsockname()
    assert.same({ "0.0.0.0", port }, { ip, tonumber(bound) })
    local c = assert(require("socket").connect("127.0.0.1", port))
    c:close(); srv:close()
    local u = sock.udp()
    assert(u:setsockname(ROUTER, port))
    u:close()
  end)

  it("sends datagrams to its daemon's nodes over 127.0.0.1 and names their senders by job address", function()
    local port, peer_port = H.free_port(), H.free_port()
    local sock = node(port, peer_port)
    local peer = require("socket").udp()
    assert(peer:setsockname("127.0.0.1", peer_port))
    peer:settimeout(2)
    local u = sock.udp()
    u:settimeout(2)
    assert(u:setsockname("*", port))
    assert(u:sendto("a", ROUTER, peer_port))
    local data, _, from_port = peer:receivefrom()
    assert.same({ "a", port }, { data, from_port })
    assert(peer:sendto("b", "127.0.0.1", port))
    local got, ip, p = u:receivefrom()
    assert.same({ "b", ROUTER, peer_port }, { got, ip, p })
    assert(u:sendto("c", ip, p))   -- the reply goes back over 127.0.0.1
    assert.equal("c", (peer:receivefrom()))
    local connected = sock.udp()
    assert(connected:setpeername(ROUTER, peer_port))
    assert(connected:send("d"))
    assert.equal("d", (peer:receivefrom()))
    u:close(); connected:close(); peer:close()
  end)

  it("routes only its daemon's nodes, and the rules still judge the job address", function()
    local port, peer_port = H.free_port(), H.free_port()
    node(port, peer_port)
    local policy = require "splaylab.socket_policy"
    assert.equal("127.0.0.1", policy:route(ROUTER, peer_port))
    assert.equal(ELSEWHERE, policy:route(ELSEWHERE, peer_port))      -- another machine's node
    assert.equal(ROUTER, policy:route(ROUTER, peer_port + 7))        -- not a port of its nodes
    local sock = node(port, peer_port, { deny = { ROUTER } })
    local _, err = sock.connect(ROUTER, peer_port)
    assert.equal("connect to " .. ROUTER .. ":" .. peer_port .. " denied: blacklisted by the controller", err)
    sock = node(port, peer_port)
    _, err = sock.connect("127.0.0.1", peer_port)   -- the shortcut is no way around the address list
    assert.equal("connect to 127.0.0.1:" .. peer_port .. " denied: not a node of this job", err)
    assert.same({}, H.texts(records, "error"))
  end)
end)
