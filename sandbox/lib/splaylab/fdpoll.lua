--[[
splaylab.fdpoll - the events loop's wait, live: ppoll(2) through the FFI over objects that have
getfd() and dirty() (LuaSocket's sockets, splaylab.sigterm's watcher), for splaylab.platform.

  local wait = require("splaylab.fdpoll").new()    -> nil when the FFI or ppoll is missing
  wait(readers, writers, extra, timeout) -> r, w    readers, writers: tables keyed by the
      objects; extra: one more object to read (or nil); timeout: seconds, nil blocks
      r, w: arrays of the ready objects, as LuaSocket's socket.select returns them (an object
      with buffered data is readable at once); reused by the next call (the loop reads them
      before it waits again)

Why not socket.select: it is what the loop did, and it cost a live rpc call more than its
system call (bench/live_rpc_instructions.py; docs/simulation.md, "The live rpc call, in
instructions"): two tables made per wait, the C API walking them and calling getfd/dirty
through it, an fd_set filled and read back. Here the objects' descriptors go into one pollfd
array kept for the process, and the result arrays are reused. ppoll has no FD_SETSIZE (select
fails past descriptor 1023). A closed object (getfd() < 0) is never ready, as with select.
EINTR returns nothing ready; another failure is an error (waiting again would spin).
Runtime only: student code has no FFI and cannot require this module.
]]
local M = { _NAME = "splaylab.fdpoll", _VERSION = "0.1" }

local floor = math.floor
-- the builtin next, in loops named neither next nor pairs (splaylab.safe_pairs says why)
local nxt = (package.loaded["splaylab.safe_pairs"] or {}).next_builtin or next

local POLLIN, POLLOUT, POLLERR, POLLHUP, POLLNVAL = 0x001, 0x004, 0x008, 0x010, 0x020
local EINTR = 4
local FOREVER = 2 ^ 31   -- seconds: a longer wait blocks (no timespec overflows)
-- what select reports as readable / writable: data or EOF, room, or an error to read
local READ_READY = POLLIN + POLLERR + POLLHUP + POLLNVAL
local WRITE_READY = POLLOUT + POLLERR + POLLHUP + POLLNVAL

local ffi_ok, ffi = pcall(require, "ffi")
local declared = false

local function declare()
  if declared then return true end
  if not ffi_ok or ffi.os ~= "Linux" then return false end
  -- declared already when this module is loaded a second time in the process (a fresh
  -- package.loaded: busted's insulation, a simulated node's loaders)
  local ok = pcall(ffi.cdef, [[
    struct splaylab_pollfd { int fd; short events; short revents; };
    struct splaylab_timespec { long tv_sec; long tv_nsec; };
    int ppoll(struct splaylab_pollfd *fds, unsigned long nfds, const struct splaylab_timespec *tmo,
              const void *sigmask);
  ]]) or pcall(ffi.typeof, "struct splaylab_pollfd")
  declared = ok and pcall(function() return ffi.C.ppoll end)
  return declared
end

function M.new()
  if not declare() then return nil end
  local C = ffi.C
  local bit = require "bit"
  local band = bit.band

  local cap = 64
  local fds = ffi.new("struct splaylab_pollfd[?]", cap)
  local tmo = ffi.new("struct splaylab_timespec")
  local objs = {}           -- objs[i]: the object of fds[i - 1]
  local r, w = {}, {}       -- the results, reused
  local nr, nw = 0, 0

  local n = 0
  local function add(s, events)
    local fd = s:getfd()
    if fd < 0 then return end
    if events == POLLIN and s:dirty() then
      nr = nr + 1
      r[nr] = s
      return   -- readable already: not polled (it would be reported twice)
    end
    if n == cap then
      local bigger = ffi.new("struct splaylab_pollfd[?]", cap * 2)
      ffi.copy(bigger, fds, ffi.sizeof("struct splaylab_pollfd") * cap)
      fds, cap = bigger, cap * 2
    end
    local p = fds[n]
    p.fd, p.events, p.revents = fd, events, 0
    n = n + 1
    objs[n] = s
  end

  return function(readers, writers, extra, timeout)
    for i = nr, 1, -1 do r[i] = nil end
    for i = nw, 1, -1 do w[i] = nil end
    n, nr, nw = 0, 0, 0
    for s in nxt, readers do add(s, POLLIN) end
    if extra then add(extra, POLLIN) end
    local first_writer = n
    for s in nxt, writers do add(s, POLLOUT) end
    local tp = nil   -- NULL: block
    if nr > 0 then timeout = 0 end   -- buffered data (the only results so far): no wait
    if timeout and (timeout ~= timeout or timeout < 0) then timeout = 0 end   -- NaN, negative: no wait
    if timeout and timeout < FOREVER then
      local sec = floor(timeout)
      tp = tmo
      tp.tv_sec, tp.tv_nsec = sec, floor((timeout - sec) * 1e9)
    end
    local got = C.ppoll(fds, n, tp, nil)
    if got < 0 and ffi.errno() ~= EINTR then
      -- EINVAL, ENOMEM: nothing the loop could wait on again without spinning
      error("events: ppoll failed (errno " .. ffi.errno() .. ")", 0)
    end
    if got > 0 then
      for i = 0, n - 1 do
        local re = fds[i].revents
        if re ~= 0 then
          if i < first_writer then
            if band(re, READ_READY) ~= 0 then nr = nr + 1; r[nr] = objs[i + 1] end
          elseif band(re, WRITE_READY) ~= 0 then
            nw = nw + 1; w[nw] = objs[i + 1]
          end
        end
      end
    end
    for i = n, 1, -1 do objs[i] = nil end   -- hold no object past the wait
    return r, w
  end
end

return M
