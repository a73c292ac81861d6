local fs = require "splaylab.fs"

describe("splaylab.fs (restricted io)", function()
  local dir
  before_each(function()
    dir = os.tmpname(); os.remove(dir); os.execute("mkdir -p " .. dir)
    fs.init { root = dir, max_size = 100, max_files = 3, max_open = 2 }
  end)
  after_each(function() os.execute("rm -rf " .. dir) end)

  it("maps every path to a flat file of the node's directory", function()
    assert.equal("tmp%2Fx", fs.resolve("/tmp/x"))
    assert.equal("tmp%2Fx", fs.resolve("./tmp//x"))
    assert.equal("a%25b", fs.resolve("a%b"))
    assert.same({ nil, "../etc/passwd: path escapes the node's directory" }, { fs.resolve("../etc/passwd") })
    assert.same({ nil, "/a/../../b: path escapes the node's directory" }, { fs.resolve("/a/../../b") })
    local f = assert(fs.open("/etc/passwd", "w"))
    f:write("mine")
    f:close()
    assert.equal("mine", assert(io.open(dir .. "/etc%2Fpasswd")):read("*a"))
    assert.equal("mine", fs.open("etc/passwd"):read("*a"))
  end)

  it("reads lines, seeks and reports types", function()
    local f = fs.open("data", "w")
    f:write("a\n", 2, "\n")
    assert.equal("file", fs.type(f))
    f:close()
    assert.equal("closed file", fs.type(f))
    assert.is_nil(fs.type(io.stdout))
    local lines = {}
    for line in fs.lines("data") do lines[#lines + 1] = line end
    assert.same({ "a", "2" }, lines)
  end)

  it("enforces total size, file count and open files", function()
    local f = fs.open("big", "w")
    assert.same({ nil, "disk quota exceeded: disk_max_size = 100 bytes" }, { f:write(string.rep("x", 101)) })
    assert.truthy(f:write(string.rep("x", 100)))
    f:close()
    f = fs.open("big", "w")   -- truncation frees the space
    assert.truthy(f:write(string.rep("y", 50)))
    local g = fs.open("b2", "w")
    assert.same({ nil, "too many open files: disk_max_file_descriptors = 2" }, { fs.open("b3", "w") })
    f:close(); g:close()
    assert.truthy(fs.open("b3", "w")):close()
    assert.same({ nil, "too many files: disk_max_files = 3" }, { fs.open("b4", "w") })
    assert.is_true(fs.remove("b3"))
    assert.truthy(fs.open("b4", "a")):close()
    assert.same({ bytes = 50, files = 3, open = 0 }, fs.usage())
  end)

  if fs.lfs_available then
    it("refuses symbolic links planted in the directory", function()
      os.execute("ln -s /etc/passwd " .. dir .. "/link")
      assert.same({ nil, "link: symbolic links are not followed" }, { fs.open("link") })
    end)
  end
end)
