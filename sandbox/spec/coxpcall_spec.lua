local cox = require "splaylab.coxpcall"

describe("splaylab.coxpcall", function()
  it("pcall and xpcall let a coroutine yield through them", function()
    local co = coroutine.create(function()
      local ok, v = cox.pcall(function() return coroutine.yield(1) + 1 end)
      local ok2, v2 = cox.xpcall(function(a) coroutine.yield(2); error(a, 0) end, function(e) return "h:" .. e end, "x")
      return ok, v, ok2, v2
    end)
    assert.same({ true, 1 }, { coroutine.resume(co) })
    assert.same({ true, 2 }, { coroutine.resume(co, 41) })
    assert.same({ true, true, 42, false, "h:x" }, { coroutine.resume(co) })
  end)
end)
