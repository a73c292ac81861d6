local lua51 = require "splaylab.lua51"
local H = require "helpers"

describe("splaylab.lua51", function()
  describe("when LuaJIT refuses an escape Lua 5.1 accepted", function()
    it("reads it as Lua 5.1 did: the character itself", function()
      local chunk, err, warnings = lua51.load('return "^(\\d+)\\.(%d+)$", "a\\qb"', "app.lua", {})
      assert.is_nil(err)
      local a, b = chunk()
      assert.equal("^(d+).(%d+)$", a)
      assert.equal("aqb", b)
      assert.equal(1, #warnings)
      assert.truthy(warnings[1]:find('^app%.lua:1: escape \\d \\%. \\q read as Lua 5%.1'))
    end)

    it("names every line it changed, counting the lines of long strings, comments and continued strings", function()
      local src = 'local a = "x"\n--[[ "\\w"\n]]\nlocal b = [[\\y\n]]\nlocal c = "\\\n\\("\nreturn a .. b .. c .. "\\%"'
      local chunk, err, warnings = lua51.load(src, "app.lua", {})
      assert.is_nil(err)
      assert.equal("x\\y\n\n(%", chunk())
      assert.same({ 7, 8 }, { tonumber(warnings[1]:match(":(%d+):")), tonumber(warnings[2]:match(":(%d+):")) })
    end)

    it("leaves escapes in comments and long strings alone", function()
      local fixed, warnings = lua51.rewrite('-- "\\d"\nlocal s = [==[\\d]==] .. "\\d"', "app.lua")
      assert.equal('-- "\\d"\nlocal s = [==[\\d]==] .. "d"', fixed)
      assert.equal(1, #warnings)
    end)

    it("treats a malformed \\x or \\u as Lua 5.1 did", function()
      local chunk = lua51.load('return "\\xg", "\\u41"', "app.lua", {})
      local a, b = chunk()
      assert.equal("xg", a)
      assert.equal("u41", b)
    end)
  end)

  describe("when LuaJIT accepts the source", function()
    it("compiles it unchanged, with LuaJIT's meaning of \\x, and no warning", function()
      local chunk, err, warnings = lua51.load('return "\\x41\\65\\n"', "app.lua", {})
      assert.is_nil(err)
      assert.equal("AA\n", chunk())
      assert.same({}, warnings)
    end)
  end)

  describe("a vararg function that names `arg` but never `...` (Lua 5.0's style)", function()
    it("gets Lua 5.1's local arg = {n = ..., ...}, with a warning naming its line", function()
      -- SPLAY's pastry.lua: rpc.a_call wrapped in function(n, ...) passing unpack(arg) on
      local src = 'local f = function(n, ...)\n  return n, arg.n, unpack(arg)\nend\nreturn f(1, "a", "b", "c")'
      local chunk, err, warnings = lua51.load(src, "app.lua", { unpack = unpack, select = select })
      assert.is_nil(err)
      assert.same({ 1, 3, "a", "b", "c" }, { chunk() })
      assert.equal(1, #warnings)
      assert.truthy(warnings[1]:find("^app%.lua:1: vararg function names `arg`"))
    end)

    it("keeps LuaJIT's meaning where the function names `...`, or is not vararg", function()
      local src = table.concat({
        "local function g(...) return select('#', ...), arg end",
        "local function h(a) return arg end",
        "local a, b = g(1, 2)",
        "return a, b, h(1)",
      }, "\n")
      local chunk, err, warnings = lua51.load(src, "app.lua", { select = select, arg = "global" })
      assert.is_nil(err)
      assert.same({ 2, "global", "global" }, { chunk() })
      assert.same({}, warnings)
    end)

    it("gives each function its own: nested functions, methods, strings and comments followed", function()
      local src = table.concat({
        "local t = {}",
        "function t:m(...) -- arg ... in a comment",
        "  local s = '...' .. \"arg\"",
        "  local inner = function(...) return select('#', ...) end",
        "  if arg.n > 0 then return arg[1], inner(1, 2, 3), s end",
        "end",
        "return t:m('x', 'y')",
      }, "\n")
      local fixed, warnings = lua51.vararg_arg(src, "app.lua")
      assert.equal(1, #warnings)
      assert.truthy(warnings[1]:find("^app%.lua:2:"))
      local chunk = assert(load(fixed, "=app.lua", "t", { select = select }))
      assert.same({ "x", 3, "...arg" }, { chunk() })
      assert.equal(select(2, src:gsub("\n", "")), select(2, fixed:gsub("\n", "")))   -- lines kept
    end)
  end)

  it("gives math.mod and string.gfind, Lua 5.1's compatibility names (SPLAY's pastry-new.lua)", function()
    local code, records = H.run_node(
      'print(math.mod(7, 3), math.mod(-7, 3))\nfor w in string.gfind("a b", "%a") do print(w) end')
    assert.equal(0, code)
    assert.same({ "1\t-1", "a", "b" }, { records[1][2], records[2][2], records[3][2] })
  end)

  it("still reports a syntax error of another kind, with its line", function()
    local chunk, err = lua51.load('local p = "\\d"\nlocal x = = 1', "app.lua", {})
    assert.is_nil(chunk)
    assert.truthy(err:find("^app%.lua:2:"))
  end)

  it("is what node.lua compiles app.lua with: a warning record, then the program runs", function()
    local code, records = H.run_node('print("\\d+")')
    assert.equal(0, code)
    assert.same({ "warning", "print" }, { records[1][1], records[2][1] })
    assert.truthy(records[1][2]:find("^app%.lua:1: escape \\d"))
    assert.equal("d+", records[2][2])
  end)
end)
