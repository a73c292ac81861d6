-- The real signalfd of splaylab.sigterm, on this busted process: a SIGTERM sent to ourselves
-- while the watcher is open is read, not fatal. Linux only.
local ffi = require "ffi"
local socket = require "socket"
local sigterm = require "splaylab.sigterm"

ffi.cdef [[
  int kill(int pid, int sig);
  int getpid(void);
]]

describe("splaylab.sigterm", function()
  it("turns SIGTERM into a readable descriptor, and gives the default action back on close", function()
    local watcher = assert(sigterm.open())
    assert.is_true(watcher:getfd() >= 0)
    assert.is_false(watcher:dirty())
    assert.equal(0, watcher:received())   -- nothing pending: does not block

    assert.equal(0, ffi.C.kill(ffi.C.getpid(), 15))
    local readable = socket.select({ watcher }, {}, 2)
    assert.equal(watcher, readable[1])
    assert.equal(1, watcher:received())
    assert.equal(0, watcher:received())

    watcher:close()   -- nothing pending any more: unblocking SIGTERM is safe
    assert.equal(-1, watcher:getfd())
    watcher:close()   -- twice is harmless
  end)

  it("coalesces signals that arrive before a read into one request", function()
    local watcher = assert(sigterm.open())
    ffi.C.kill(ffi.C.getpid(), 15)
    ffi.C.kill(ffi.C.getpid(), 15)
    assert.equal(1, watcher:received())
    watcher:close()
  end)
end)
