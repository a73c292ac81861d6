-- A node on a loopback address of its own (docs/decisions.md, "One address per node"): its
-- servers listen there, its sockets leave from there, and 127.0.0.1 stays out of reach.
local events = require "splaylab.events"
local H = require "helpers"

describe("splaylab.socket on a loopback address of the node's own", function()
  local saved_exit = events.on_exit
  local records
  setup(function() events.on_exit = function() end end)
  teardown(function() events.on_exit = saved_exit end)
  before_each(function() records = H.capture() end)
  after_each(H.restore)

  local ME, PEER = "127.1.200.7", "127.1.200.8"

  local function node(port, peer_port)
    local sock = require "splaylab.socket"
    sock.init { me = { ip = ME, port = port }, peers = { { ip = PEER, port = peer_port } } }
    return sock
  end

  it("binds *, 0.0.0.0, localhost and 127.0.0.1 on its own address", function()
    local port = H.free_port()
    local sock = node(port, H.free_port())
    for _, host in ipairs { "*", "0.0.0.0", "localhost", "127.0.0.1" } do
      local srv = assert(sock.bind(host, port))
      local ip, bound = srv:getsockname()
      assert.same({ ME, port }, { ip, tonumber(bound) })
      srv:close()
    end
    local u = sock.udp()
    assert(u:setsockname("*", port))
    local ip, bound = u:getsockname()
    assert.same({ ME, port }, { ip, tonumber(bound) })
    u:close()
  end)

  it("connects from its own address, and a peer's accept sees it", function()
    local port, peer_port = H.free_port(), H.free_port()
    local sock = node(port, peer_port)
    local peer = assert(require("socket").bind(PEER, peer_port))   -- the other node, unrestricted
    peer:settimeout(2)
    local c = assert(sock.connect(PEER, peer_port))
    local accepted = assert(peer:accept())
    assert.equal(ME, (accepted:getpeername()))
    assert.equal(ME, (c:getsockname()))
    accepted:close(); c:close(); peer:close()
  end)

  it("sends datagrams from its own address, unconnected and connected", function()
    local port, peer_port = H.free_port(), H.free_port()
    local sock = node(port, peer_port)
    local peer = require("socket").udp()
    assert(peer:setsockname(PEER, peer_port))
    peer:settimeout(2)
    assert(sock.udp():sendto("a", PEER, peer_port))
    local data, ip = peer:receivefrom()
    assert.same({ "a", ME }, { data, ip })
    local u = sock.udp()
    assert(u:setpeername(PEER, peer_port))
    assert(u:send("b"))
    data, ip = peer:receivefrom()
    assert.same({ "b", ME }, { data, ip })
    peer:close()
  end)

  it("still refuses 127.0.0.1 and other loopback addresses on a node's port", function()
    local port, peer_port = H.free_port(), H.free_port()
    local sock = node(port, peer_port)
    for _, ip in ipairs { "127.0.0.1", "127.1.200.9", ME } do
      local _, err = sock.connect(ip, peer_port)
      assert.equal("connect to " .. ip .. ":" .. peer_port .. " denied: not a node of this job", err)
    end
    assert.same({}, H.texts(records, "error"))
  end)
end)
