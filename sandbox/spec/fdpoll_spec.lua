-- splaylab.fdpoll on real sockets of this busted process: what it reports ready is what
-- LuaSocket's socket.select reports (the events loop used it before), and its edges.
local socket = require "socket"
local fdpoll = require "splaylab.fdpoll"

local function set(list)
  local s = {}
  for _, x in ipairs(list) do s[x] = true end
  return s
end

-- a connected pair of TCP sockets on loopback, and the listening one
local function pair()
  local srv = assert(socket.bind("127.0.0.1", 0))
  local _, port = srv:getsockname()
  local a = assert(socket.connect("127.0.0.1", port))
  local b = assert(srv:accept())
  a:settimeout(0); b:settimeout(0); srv:settimeout(0)
  return a, b, srv
end

describe("splaylab.fdpoll", function()
  local wait = assert(fdpoll.new(), "ppoll through the FFI: Linux and LuaJIT have it")

  it("reports what is readable and writable, as socket.select does", function()
    local a, b, srv = pair()
    local r, w = wait({ [a] = true, [b] = true }, { [a] = true }, nil, 0)
    assert.same({}, r)
    assert.same({ a }, w)   -- room to send, nothing to read
    assert(b:send("hello\n"))
    r, w = wait({ [a] = true, [b] = true }, {}, nil, 1)
    assert.same({ a }, r)
    assert.same({}, w)
    local sr = socket.select({ a, b }, {}, 0)
    assert.same(set(sr), set(r))
    a:close(); b:close(); srv:close()
  end)

  it("waits out its timeout when nothing is ready, and blocks for no longer than asked", function()
    local a, b, srv = pair()
    local t0 = socket.gettime()
    local r = wait({ [a] = true }, {}, nil, 0.05)
    local took = socket.gettime() - t0
    assert.same({}, r)
    assert.is_true(took >= 0.045, "waited " .. took)
    assert.is_true(took < 1, "waited " .. took)
    -- negative and NaN timeouts do not wait (platform.select's rule); a huge one still ends
    -- at once when something is ready
    for _, t in ipairs({ -1, 0 / 0 }) do
      t0 = socket.gettime()
      assert.same({}, (wait({ [a] = true }, {}, nil, t)))
      assert.is_true(socket.gettime() - t0 < 0.5)
    end
    assert(b:send("x"))
    assert.same({ a }, (wait({ [a] = true }, {}, nil, math.huge)))
    a:close(); b:close(); srv:close()
  end)

  it("reports buffered data at once (dirty), without waiting for the descriptor", function()
    local a, b, srv = pair()
    assert(b:send("one\ntwo\n"))
    assert.same({ a }, (wait({ [a] = true }, {}, nil, 1)))
    assert.equal("one", a:receive("*l"))   -- "two\n" stays in LuaSocket's buffer
    assert.is_true(a:dirty())
    local t0 = socket.gettime()
    local r = wait({ [a] = true, [srv] = true }, {}, nil, 5)
    assert.same({ a }, r)
    assert.is_true(socket.gettime() - t0 < 1)
    assert.equal("two", a:receive("*l"))
    a:close(); b:close(); srv:close()
  end)

  it("watches the extra object for reading, and a peer's close as readable", function()
    local a, b, srv = pair()
    local _, port = srv:getsockname()
    local c = assert(socket.connect("127.0.0.1", port))   -- a pending accept
    assert.same({ srv }, (wait({}, {}, srv, 1)))
    b:close()
    local r = wait({ [a] = true }, {}, nil, 1)
    assert.same({ a }, r)
    local line, err = a:receive("*l")
    assert.is_nil(line)
    assert.equal("closed", err)
    a:close(); c:close(); srv:close()
  end)

  it("never reports a closed socket, nor fails on it", function()
    local a, b, srv = pair()
    assert(b:send("x"))
    a:close()
    assert.equal(-1, a:getfd())
    local r, w = wait({ [a] = true }, { [a] = true }, nil, 0)
    assert.same({}, r)
    assert.same({}, w)
    b:close(); srv:close()
  end)

  it("grows past its first 64 descriptors", function()
    local socks, readers = {}, {}
    for i = 1, 45 do
      local a, b, srv = pair()
      socks[#socks + 1] = a; socks[#socks + 1] = b; srv:close()
      readers[a], readers[b] = true, true
      if i % 3 == 0 then assert(b:send("x")) end
    end
    local r = wait(readers, {}, nil, 1)
    assert.equal(15, #r)
    for _, s in ipairs(r) do assert.equal(1, #assert(s:receive(1))) end
    for _, s in ipairs(socks) do s:close() end
  end)

  it("holds no socket past a wait (its arrays keep no reference)", function()
    local a, b, srv = pair()
    local weak = setmetatable({ a }, { __mode = "v" })
    wait({ [a] = true }, {}, nil, 0)
    a:close(); a = nil   -- luacheck: ignore 311
    collectgarbage(); collectgarbage()
    assert.is_nil(weak[1])
    b:close(); srv:close()
  end)

  it("still waits through ppoll when the module is loaded a second time in the process", function()
    package.loaded["splaylab.fdpoll"] = nil   -- a fresh package.loaded (a simulated node's loaders)
    local again = require "splaylab.fdpoll"
    package.loaded["splaylab.fdpoll"] = fdpoll
    assert.is_not.equal(fdpoll, again)
    assert.is_function(again.new(), "its types are declared already: not a reason to fall back")
  end)
end)
