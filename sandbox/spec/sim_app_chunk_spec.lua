-- splaylab.sim.app_chunk: app.lua compiled once, a closure of its main function per node
-- (docs/simulation.md "Figures": one set of prototypes for every node).
local app_chunk = require "splaylab.sim.app_chunk"
local lua51 = require "splaylab.lua51"

local function env_of(position)
  return setmetatable({ position = position }, { __index = _G })
end

describe("sim.app_chunk", function()
  it("gives every node its own globals, top-level locals and functions", function()
    local make = assert(app_chunk.new([[
      count = (count or 0) + position
      local calls = 0
      function bump() calls = calls + 1; return position, calls end
      return ...
    ]], "app.lua", true))
    local env1, env2 = env_of(1), env_of(2)
    local main1, main2 = make(env1), make(env2)
    assert.are_not.equal(main1, main2)
    assert.equal("arg", main1("arg"))   -- `...` as a chunk's
    main2()
    assert.same({ 1, 1 }, { env1.bump() })
    assert.same({ 1, 2 }, { env1.bump() })
    assert.same({ 2, 1 }, { env2.bump() })   -- its own upvalue `calls`
    assert.equal(1, env1.count)
    assert.equal(2, env2.count)
    assert.equal(env1, getfenv(env1.bump))
    assert.is_nil(rawget(_G, "count"))
    assert.is_nil(rawget(_G, "bump"))
  end)

  it("shares the prototypes: a node costs a closure, not a compiled copy of the source", function()
    local lines = {}
    for i = 1, 300 do lines[i] = ("function f%d(x) return x + %d, 'constant %d' end"):format(i, i, i) end
    local src = table.concat(lines, "\n")
    local function grown(n, fresh)
      local keep = {}
      collectgarbage(); collectgarbage()
      local before = collectgarbage("count")
      for i = 1, n do keep[i] = fresh() end
      collectgarbage(); collectgarbage()
      return (collectgarbage("count") - before) / n, keep
    end
    local make = assert(app_chunk.new(src, "app.lua", true))
    local per_closure = grown(100, function() return make({}) end)
    local per_compile = grown(100, function() return assert(loadstring(src, "=app.lua")) end)
    assert.is_true(per_compile > 20, "a compiled copy: " .. per_compile .. " KB")
    assert.is_true(per_closure < 0.5, "a closure: " .. per_closure .. " KB")
  end)

  it("refuses what the chunk compiler refuses, with the same message and warnings", function()
    local make, err, warnings = app_chunk.new("local x = = 1\n", "app.lua", true)
    assert.is_nil(make)
    assert.equal(select(2, lua51.load("local x = = 1\n", "app.lua", {})), err)
    assert.same({}, warnings)
    make, err = app_chunk.new("\27LJ\2...", "app.lua", true)
    assert.is_nil(make)
    assert.equal("app.lua:1: precompiled bytecode is not accepted, send Lua source", err)
    make, err = app_chunk.new("return = 1", "harness.lua", false)
    assert.is_nil(make)
    assert.matches("^harness%.lua:1:", err)
    -- Lua 5.1's escapes: rewritten as live, one warning per line, for every node to write
    local _, _, live_warnings = lua51.load('x = "a\\d"\n', "app.lua", {})
    make, err, warnings = app_chunk.new('x = "a\\d"\n', "app.lua", true)
    assert.is_nil(err)
    assert.same(live_warnings, warnings)
    assert.equal(1, #warnings)
    local env = {}
    make(env)()
    assert.equal("ad", env.x)
  end)

  it("keeps line numbers, and a source ending in a comment", function()
    local make = assert(app_chunk.new("x = 1\n\nerror('third line') -- no newline at the end", "app.lua", true))
    local ok, err = pcall(make({ error = error }))
    assert.is_false(ok)
    assert.equal("app.lua:3: third line", err)
  end)

  it("names the main function's frame as live names a chunk's, and no other frame", function()
    local make = assert(app_chunk.new(
      "local t = {}; (function() (function() error('deep') end)() end)()\n", "app.lua", true))
    local main = make({ error = error })
    local tb
    xpcall(main, function(err) tb = app_chunk.main_frames(debug.traceback(err, 2), nil, main) end)
    -- two functions without a name defined on line 1 keep their "<app.lua:1>"; the main
    -- function reads as a chunk
    assert.matches("app.lua:1: in function <app.lua:1>\n\tapp.lua:1: in function <app.lua:1>\n" ..
      "\tapp.lua:1: in main chunk\n", tb, 1, true)
    -- a traceback of a thread, and a main function that is not on the stack
    local other = make({ error = error })
    local co = coroutine.create(other)
    coroutine.resume(co)
    assert.matches("app.lua:1: in main chunk", app_chunk.main_frames(debug.traceback(co), co, nil, other), 1, true)
    assert.not_matches("main chunk", app_chunk.main_frames(debug.traceback(co), co, main), 1, true)
    assert.equal("no frames", app_chunk.main_frames("no frames", nil, main))
    assert.equal(42, app_chunk.main_frames(42, nil, main))
  end)
end)
