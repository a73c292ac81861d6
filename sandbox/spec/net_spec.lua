local events = require "splaylab.events"
local net = require "splaylab.net"
local llenc = require "splaylab.llenc"
local sock = require "splaylab.socket"
local H = require "helpers"

describe("splaylab.net and splaylab.llenc", function()
  local saved_exit = events.on_exit
  setup(function() events.on_exit = function() end end)
  teardown(function() events.on_exit = saved_exit end)

  it("serves each connection in its own thread; llenc frames messages", function()
    local port = H.free_port()
    H.net_node(port, {})
    local got = {}
    events.run(function()
      assert.is_true(net.server(port, function(c)
        local w = llenc.wrap(c)
        w:send("echo:" .. w:receive())
      end))
      for i = 1, 2 do
        events.thread(function()
          got[i] = net.client({ ip = "127.0.0.1", port = port }, function(c)
            assert.is_true(llenc.send(c, "msg\n" .. i))
            return llenc.receive(c)
          end)
        end)
      end
      events.sleep(0.2)
      events.exit()
    end)
    assert.same({ "echo:msg\n1", "echo:msg\n2" }, got)
  end)

  it("refuses oversized frames", function()
    assert.equal("5\nhello", llenc.encode("hello"))
    local fake = { receive = function(_, p) if p == "*l" then return "99999999999" end end }
    assert.same({ nil, "llenc: message of 99999999999 bytes exceeds 16777216" }, { llenc.receive(fake) })
  end)

  it("udp_helper hands each datagram to the handler", function()
    local port = H.free_port()
    H.net_node(port, { port })
    local got
    events.run(function()
      local u = assert(net.udp_helper(port, function(data, ip) got = data .. "@" .. ip; events.exit() end))
      local s = sock.udp()
      s:sendto("ping", "127.0.0.1", port)
      events.sleep(1)
      u:close()
    end)
    assert.equal("ping@127.0.0.1", got)
  end)
end)
