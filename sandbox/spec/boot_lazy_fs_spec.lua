-- boot.lazy_fs: the node's confined files, set up on the first file operation. What the app
-- sees is splaylab.fs's own behaviour, errors naming the app's line included.
local boot = require "splaylab.boot"

describe("boot.lazy_fs", function()
  local dir
  before_each(function() dir = os.tmpname(); os.remove(dir); os.execute("mkdir -p " .. dir) end)
  after_each(function() os.execute("rm -rf " .. dir) end)

  local function app(src, files)   -- src as app.lua, with the env's io and os functions
    return assert(loadstring("local io, os = ...\n" .. src, "@app.lua"))(files.io_functions(), files.os_functions())
  end

  it("names the app's line for a bad mode or a missing file", function()
    local files = boot.lazy_fs { root = dir }
    local ok, err = pcall(app, "local f = io.open('x', 'zz')\nreturn f", files)
    assert.is_false(ok)
    assert.equal("app.lua:2: bad argument #2 to 'open' (invalid mode zz)", err)
    ok, err = pcall(app, "local it = io.lines('missing')\nreturn it", files)
    assert.is_false(ok)
    assert.equal("app.lua:2: missing: No such file or directory", err)
  end)

  it("counts the files already in the directory, and keeps its limits", function()
    assert(io.open(dir .. "/there", "w")):close()
    local files = boot.lazy_fs { root = dir, max_files = 2, max_size = 100, max_open = 2 }
    assert.same({ "x", true, "closed file" }, { app([[
      local f = assert(io.open("x", "w")); f:write("x"); f:close()
      local g, err = io.open("y", "w")   -- "there" and "x": 2 files
      assert(g == nil and err:match("^too many files"), err)
      return io.open("x"):read("*a"), os.rename("x", "z"), io.type(f)]], files) })
  end)
end)
