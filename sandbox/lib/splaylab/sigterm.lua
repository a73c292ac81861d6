--[[
splaylab.sigterm - SIGTERM as a readable descriptor (Linux signalfd), for the platform layer.

A graceful leave is a SIGTERM from the host (the daemon, run_local's churn). A signal handler
written in Lua would run at an arbitrary point of the interpreter (LuaJIT FFI callbacks from
signal context are unsafe), so SIGTERM is instead blocked for the process (it stays pending
instead of killing it) and read synchronously from a signalfd, which the events loop's select
watches like a socket.

  local watcher, err = require("splaylab.sigterm").open()
  watcher:getfd(), watcher:dirty()     what LuaSocket's socket.select needs of an object
  watcher:received() -> n              SIGTERMs read since the last call (never blocks)
  watcher:close()                      close the descriptor and unblock SIGTERM again

open() returns nil, reason when the FFI, Linux or a known ABI is missing; SIGTERM then keeps
its default action (the process ends at once, killed by the signal).
Runtime only: student code has no FFI and cannot require this module.
Limits: the mask is per thread (LuaJIT runs one); a signal blocked at exec stays blocked in
child processes, but nodes cannot start any.
]]
local M = { _NAME = "splaylab.sigterm", _VERSION = "0.1" }

local SIGTERM = 15
local SIG_BLOCK, SIG_UNBLOCK = 0, 1
-- O_NONBLOCK / O_CLOEXEC of the architectures where they have these (generic) values.
local SFD_NONBLOCK, SFD_CLOEXEC = 0x800, 0x80000
local GENERIC_ABI = { x86 = true, x64 = true, arm = true, arm64 = true }
local SIGINFO_SIZE = 128   -- sizeof(struct signalfd_siginfo)
local EINTR = 4

local ffi_ok, ffi = pcall(require, "ffi")
local declared = false

local function declare()
  if declared then return end
  ffi.cdef [[
    typedef struct { uint8_t bits[128]; } splaylab_sigset_t;   /* glibc and musl: 1024 bits */
    int sigemptyset(splaylab_sigset_t *set);
    int sigaddset(splaylab_sigset_t *set, int signum);
    int sigprocmask(int how, const splaylab_sigset_t *set, splaylab_sigset_t *oldset);
    int signalfd(int fd, const splaylab_sigset_t *mask, int flags);
    intptr_t read(int fd, void *buf, size_t count);
    int close(int fd);
  ]]
  declared = true
end

local function errno_text(what)
  return what .. " failed (errno " .. ffi.errno() .. ")"
end

local Watcher = {}
Watcher.__index = Watcher

function Watcher:getfd() return self.fd end
function Watcher.dirty() return false end   -- no buffered data: select decides

function Watcher:received()
  local n = 0
  while self.fd >= 0 do
    local got = tonumber(ffi.C.read(self.fd, self.buf, SIGINFO_SIZE))
    if got == SIGINFO_SIZE then
      n = n + 1
    elseif not (got < 0 and ffi.errno() == EINTR) then
      break   -- EAGAIN: nothing more pending
    end
  end
  return n
end

function Watcher:close()
  if self.fd < 0 then return end
  ffi.C.close(self.fd)
  self.fd = -1
  ffi.C.sigprocmask(SIG_UNBLOCK, self.mask, nil)
end

function M.open()
  if not ffi_ok then return nil, "no FFI" end
  if ffi.os ~= "Linux" then return nil, "signalfd needs Linux (this is " .. ffi.os .. ")" end
  if not GENERIC_ABI[ffi.arch] then return nil, "signal constants unknown for " .. ffi.arch end
  declare()
  local mask = ffi.new("splaylab_sigset_t")
  ffi.C.sigemptyset(mask)
  ffi.C.sigaddset(mask, SIGTERM)
  -- Block first: a SIGTERM arriving between the two calls then waits in the pending set,
  -- where the signalfd finds it.
  if ffi.C.sigprocmask(SIG_BLOCK, mask, nil) ~= 0 then return nil, errno_text("sigprocmask") end
  local fd = ffi.C.signalfd(-1, mask, SFD_NONBLOCK + SFD_CLOEXEC)
  if fd < 0 then
    local err = errno_text("signalfd")
    ffi.C.sigprocmask(SIG_UNBLOCK, mask, nil)
    return nil, err
  end
  return setmetatable({ fd = fd, mask = mask, buf = ffi.new("uint8_t[?]", SIGINFO_SIZE) }, Watcher)
end

return M
