-- End to end: `luajit node.lua job.json app.lua` in a fresh directory, as the daemon runs it.
local H = require "helpers"

describe("node.lua", function()
  it("gives the app its job table and ends with exit code 0", function()
    local rc, records = H.run_node("print(job.position, job.me.ip, job.me.port, #job.nodes, job.nodes[2].port)", 2)
    assert.equal(0, rc)
    assert.same({ { "print", "2\t127.0.0.1\t20002\t2\t20002" } }, records)
  end)

  it("exits 2 on a syntax error with the first record naming the line", function()
    local rc, records = H.run_node("print('a')\n\nlocal = 3\n")
    assert.equal(2, rc)
    assert.same({ "error", "app.lua:3: '<name>' expected near '='" }, records[1])
  end)

  it("refuses bytecode as a syntax error", function()
    local rc, records = H.run_node(string.dump(function() end))
    assert.equal(2, rc)
    assert.equal("error", records[1][1])
    assert.truthy(records[1][2]:find("^app.lua:1: precompiled bytecode is not accepted"))
  end)

  it("exits 1 on a runtime error and logs the traceback as error records", function()
    local rc, records = H.run_node("local t = nil\nprint('x')\nreturn t.field\n")
    assert.equal(1, rc)
    assert.same({ "print", "x" }, records[1])
    assert.same({ "error", "app.lua:3: attempt to index local 't' (a nil value)" }, records[2])
    assert.same({ "error", "stack traceback:" }, records[3])
    assert.same({ "error", "\tapp.lua:3: in main chunk" }, records[4])
    assert.equal(4, #records)
  end)

  it("exits 1 on an error inside an events thread, with that thread's traceback", function()
    local rc, records = H.run_node("events.run(function()\n  events.sleep(0.01)\n  error('in thread')\nend)")
    assert.equal(1, rc)
    assert.same({ "error", "app.lua:3: in thread" }, records[1])
  end)

  it("exits 4 when memory runs out, even if the app catches the first failure", function()
    local rc, records = H.run_node(
      "print(pcall(string.rep, 'x', 2^30))\nlocal t = {}\nfor i = 1, 1e9 do t[i] = {i} end")
    assert.equal(4, rc)
    assert.same({ { "print", "false\tnot enough memory" }, { "error", "app.lua: not enough memory" } }, records)
  end)

  it("runs the events loop when the app only started threads", function()
    local rc, records = H.run_node("events.thread(function() events.sleep(0.01); print('later') end)\nprint('first')")
    assert.equal(0, rc)
    assert.same({ { "print", "first" }, { "print", "later" } }, records)
  end)

  it("ends with events.exit() even with periodic threads left", function()
    local rc, records = H.run_node([[
      events.periodic(0.01, function() end)
      events.run(function() events.sleep(0.03); io.write("bye"); events.exit() end)
      print("not reached")
    ]])
    assert.equal(0, rc)
    assert.same({ { "print", "bye" } }, records)
  end)

  it("keeps forged records in the print level", function()
    local rc, records = H.run_node('print("error\\tforged\\ninfo\\tx")\nio.write("warning\\tw\\n")')
    assert.equal(0, rc)
    assert.same({ { "print", "error\tforged" }, { "print", "info\tx" }, { "print", "warning\tw" } }, records)
  end)

  describe("when the app tries to escape", function()
    local attempts = {
      { 'require "ffi"', "module 'ffi' is not available in the SplayLab sandbox" },
      { "string.dump(print)", "string.dump is not available in the SplayLab sandbox" },
      { "getfenv(0).os.execute('id')", "os.execute is not available in the SplayLab sandbox" },
      { "io.popen('id')", "io.popen is not available in the SplayLab sandbox" },
      { "os.execute('id')", "os.execute is not available in the SplayLab sandbox" },
      { "debug.getregistry()", "debug.getregistry is not available in the SplayLab sandbox" },
      { "getmetatable('').__index.upper = nil", "attempt to index a nil value" },
      { "package.loadlib('libc.so.6', 'system')", "attempt to index global 'package' (a nil value)" },
    }
    for _, a in ipairs(attempts) do
      it("gets a runtime error naming it: " .. a[1], function()
        local rc, records = H.run_node(a[1])
        assert.equal(1, rc)  -- a normal runtime error, not a crash of the runner (3)
        assert.equal("error", records[1][1])
        assert.truthy(records[1][2]:find("app.lua:1: " .. a[2], 1, true), records[1][2])
      end)
    end
  end)

  it("runs each node with its own state", function()
    local app = [[
      counter = (counter or 0) + 1
      string.upper = function() return "hacked" end
      print(job.position, counter, ("a"):upper())
    ]]
    local rc1, r1 = H.run_node(app, 1)
    local rc2, r2 = H.run_node(app, 2)
    assert.same({ 0, 0 }, { rc1, rc2 })
    assert.same({ { "print", "1\t1\thacked" } }, r1)
    assert.same({ { "print", "2\t1\thacked" } }, r2)
  end)
  describe("with the SPLAY API", function()
    it("splay.base sets socket and pcall; every splay module loads", function()
      local rc, records = H.run_node([[
        assert(socket == nil)
        local base = require "splay.base"
        assert(socket and base.socket == socket and base.events == events)
        for _, m in ipairs({"events", "misc", "log", "socket", "net", "llenc", "json", "benc", "rpc",
                            "urpc", "queue", "coxpcall", "metrics"}) do
          assert(type(require("splay." .. m)) == "table", m)
        end
        assert(require("splay.rpc").a_call and socket.init == nil)
        print(type(job.network.max_sockets), job.get_live_nodes()[2].port)
      ]])
      assert.equal(0, rc)
      assert.same({ { "print", "number\t20002" } }, records)
    end)

    it("confines io to the node's directory", function()
      local rc, records = H.run_node([[
        local f = assert(io.open("/etc/passwd", "w")); f:write("x"); f:close()
        print(io.open("/etc/passwd"):read("*a"), select(2, io.open("../../etc/passwd")))
        print(pcall(function() return io.popen("id") end))
      ]])
      assert.equal(0, rc)
      assert.same({ "print", "x\t../../etc/passwd: path escapes the node's directory" }, records[1])
      assert.equal("false", records[2][2]:sub(1, 5))
    end)

    it("reads limits from job.json and denies connects outside the job", function()
      local rc, records = H.run_node([[
        require "splay.base"
        print(job.network.max_sockets, socket.connect("127.0.0.1", 5432))
      ]], 1, '{"me": {"ip": "127.0.0.1", "port": 20001}, "nodes": [], "position": 1, ' ..
        '"limits": {"max_sockets": 3}}')
      assert.equal(0, rc)
      assert.same({
        { "warning", "[splay.socket] connect to 127.0.0.1:5432 denied: not a node of this job" },
        { "print", "3\tnil\tconnect to 127.0.0.1:5432 denied: not a node of this job" },
      }, records)
    end)
  end)
end)
