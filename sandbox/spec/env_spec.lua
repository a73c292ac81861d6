local env_lib = require "splaylab.env"

-- Build an environment and run `src` in it; returns what the chunk returns (pcall-style).
local function sandboxed(src, printed)
  local env = env_lib.build {
    job = { position = 1 }, events = {}, log = {}, misc = {},
    print = function(...) printed[#printed + 1] = table.concat({ ... }, "\t") end,
    io_write = function(s) printed[#printed + 1] = s end,
  }
  local chunk = assert(load(src, "=app.lua", "t", env))
  return pcall(chunk)
end

describe("splaylab.env", function()
  local string_index
  setup(function() string_index = getmetatable("").__index end)
  teardown(function() getmetatable("").__index = string_index end)

  it("detects LuaJIT and that load refuses bytecode", function()
    assert.is_true(env_lib.luajit)
    assert.is_true(env_lib.bytecode_blocked)
  end)

  it("gives a reason for every exclusion", function()
    for name, reason in pairs(env_lib.EXCLUDE) do
      assert.is_string(name)
      assert.is_true(type(reason) == "string" and #reason > 10, name)
    end
  end)

  describe("when student code reaches for an excluded function", function()
    local cases = {
      { 'return require "ffi"', "module 'ffi' is not available in the SplayLab sandbox: the FFI" },
      { 'return require "debug".getinfo', "debug.getinfo is not available" },
      { "return string.dump(print)", "string.dump is not available" },
      { 'return ("x").dump', "string.dump is not available" },
      { "return getfenv(0).os.execute", "os.execute is not available in the SplayLab sandbox: runs a host command" },
      { "return io.popen", "io.popen is not available" },
      { "return io.open", "io.open is not available" },
      { "return io.stdout", "io.stdout is not available" },
      { "return os.getenv", "os.getenv is not available" },
      { "return os.exit", "os.exit is not available" },
      { 'return collectgarbage("stop")', "collectgarbage('stop') is not available" },
      { "return setfenv(print, {})", "setfenv on this function is not available" },
      { "return setfenv(0, {})", "setfenv(0, ...) is not available" },
      { 'return require "socket"', "module 'socket' is not available" },
    }
    for _, case in ipairs(cases) do
      it("errors with the name: " .. case[1], function()
        local ok, err = sandboxed(case[1], {})
        assert.is_false(ok)
        assert.truthy(tostring(err):find(case[2], 1, true), tostring(err))
      end)
    end
  end)

  it("leaves ffi, jit, package, newproxy, module and debug.getinfo out", function()
    local ok, res = sandboxed(
      "return {ffi, jit, package, newproxy, module, rawget(debug, 'getinfo'), rawget(string, 'dump')}", {})
    assert.is_true(ok)
    assert.same({}, res)
  end)

  it("runs a full collect for collectgarbage() and collectgarbage('collect'), as SPLAY's apps call them", function()
    local ok, res = sandboxed("return collectgarbage(), collectgarbage('collect')", {})
    assert.same({ true, 0 }, { ok, res })
  end)

  it("gives gcinfo() as collectgarbage('count') in whole KB (SPLAY's apps print it)", function()
    local ok, res = sandboxed("return gcinfo() == math.floor(collectgarbage('count'))", {})
    assert.same({ true, true }, { ok, res })
  end)

  it("never hands out the runtime's globals", function()
    local ok, res = sandboxed([[
      local seen = {getfenv(0), getfenv(1), getfenv(), getfenv(print), getfenv(string.rep), getfenv(events and print)}
      for _, e in ipairs(seen) do if e ~= _G then return false end end
      return getmetatable("") == nil and rawget(_G, "_G") == _G
    ]], {})
    assert.same({ true, true }, { ok, res })
  end)

  it("keeps load text-only with the sandbox environment", function()
    local ok, a, b, c = sandboxed([[
      local f = load("return os.execute")
      local g, err = load(string.char(27) .. "LJ\2")
      local h = loadstring("x_global = 1")
      h()
      return pcall(f), g == nil and err, x_global
    ]], {})
    assert.is_true(ok)
    assert.is_false(a)
    assert.equal("attempt to load chunk with wrong mode", b)
    assert.equal(1, c)
  end)

  it("lets student code use its own environments with setfenv/getfenv", function()
    local ok, res = sandboxed([[
      local box = {x = 5}
      local f = load("return x")
      setfenv(f, box)
      return f() == 5 and getfenv(f) == box
    ]], {})
    assert.same({ true, true }, { ok, res })
  end)

  it("allows the usual libraries and collectgarbage('count')", function()
    local printed = {}
    local ok, res = sandboxed([[
      print(string.format("%d-%s", 3, ("ab"):upper()), table.concat({1, 2}, ","), math.max(1, 2))
      io.write("w")
      return bit.band(6, 3) == 2 and collectgarbage("count") > 0 and type(os.time()) == "number"
        and require("table") == table and require("splay.base").events == events
    ]], printed)
    assert.same({ true, true }, { ok, res })
    assert.same({ "3-AB\t1,2\t2", "w" }, printed)
  end)

  it("gives each environment its own globals", function()
    assert.is_true((sandboxed("shared_name = 1", {})))
    local ok, res = sandboxed("return shared_name", {})
    assert.same({ true, nil }, { ok, res })
  end)
end)
