--[[
splaylab.platform - the seam between SPLAY's application-facing modules and the machine.

Every module student code can reach (events, socket, rpc, urpc, net, misc, metrics, io) asks
this table, and only this table, for time, waiting, transport and identity:

  platform.now()                      wall clock, seconds as a float
  platform.sleep(t)                   block the whole process for t seconds (no thread running)
  platform.select(recvt, sendt, t)    readiness of raw transport sockets (LuaSocket semantics;
                                      t = nil blocks until one is ready)
  platform.poll(readers, writers, extra, t)
                                      the events loop's wait: select on the keys of two
                                      tables keyed by socket (and on `extra` for reading);
                                      live, ppoll through the FFI (splaylab.fdpoll), whose
                                      result arrays the next wait reuses
  platform.tcp(), platform.udp()      raw transport sockets (LuaSocket objects)
  platform.toip(host)                 name resolution -> ip or nil, err
  platform.identity                   {position, ip, port, job_id, seed} of this node
  platform.random_seed()              the seed math.random gets for this node
  platform.exit(code)                 end this node
  platform.catch_leave()              from now on, the host's leave request (SIGTERM) no
                                      longer kills the process: -> true | nil, reason
  platform.leave_signal()             nil until caught, then an object platform.select can
                                      watch for reading, with :received() -> requests read
                                      since the last call (never blocks)

This process-per-node implementation is a thin layer over LuaSocket. A deterministic
simulator (all nodes in one process, virtual time, virtual sockets) replaces this table by
one with the same functions: `platform.install(impl)` swaps every field in place, so modules
that cached `platform` keep working. Modules must call platform.X at use time (not cache the
functions) for the swap to take effect.

Limits: no DNS restrictions here (splaylab.socket checks addresses after resolution).
The leave request is a Linux signalfd (splaylab.sigterm); elsewhere catch_leave fails and
SIGTERM keeps killing the process.
]]
local socket = require "socket"

local M = { _NAME = "splaylab.platform", _VERSION = "0.1" }

local floor, tonumber = math.floor, tonumber

M.identity = { position = 1, ip = "127.0.0.1", port = 0, job_id = 0, seed = nil }

function M.now() return socket.gettime() end

function M.sleep(t)
  if t and t > 0 then socket.sleep(t) end
end

function M.select(recvt, sendt, timeout)
  if timeout and timeout < 0 then timeout = 0 end
  return socket.select(recvt, sendt, timeout)
end

-- ppoll through the FFI where there is one (splaylab.fdpoll says why), else LuaSocket's select
local fdpoll = require("splaylab.fdpoll").new()

function M.poll(readers, writers, extra, timeout)
  if fdpoll then return fdpoll(readers, writers, extra, timeout) end
  local r, w = {}, {}
  for s in pairs(readers) do r[#r + 1] = s end
  for s in pairs(writers) do w[#w + 1] = s end
  if extra then r[#r + 1] = extra end
  return M.select(r, w, timeout)
end

-- IPv4 sockets, created at once: LuaSocket's socket.tcp() makes a family-less socket that only
-- exists after bind/connect, so an option set before the bind (reuseaddr: a server reopened on
-- its port while its last connection waits in TIME_WAIT, as a node rejoining under churn does)
-- was silently dropped. Every address SplayLab hands a node is IPv4.
function M.tcp() return socket.tcp4() end
function M.udp() return socket.udp4() end

function M.toip(host)
  if host == "*" or host:match("^%d+%.%d+%.%d+%.%d+$") then return host end
  local ip, err = socket.dns.toip(host)
  if not ip then return nil, err end
  return ip
end

-- The seed of math.random: from job.json's seed when given (reproducible runs), else from
-- the clock; always mixed with the position so that every node draws differently.
function M.random_seed()
  local id = M.identity
  local pos = tonumber(id.position) or 1
  if id.seed ~= nil then return (tonumber(id.seed) * 7919 + pos * 104729) % 2147483647 end
  return (floor(M.now() * 1000) + pos * 104729) % 2147483647
end

local leave_watcher

function M.catch_leave()
  if leave_watcher then return true end
  local watcher, err = require("splaylab.sigterm").open()
  if not watcher then return nil, err end
  leave_watcher = watcher
  return true
end

function M.leave_signal() return leave_watcher end

function M.exit(code)
  io.stdout:flush()
  os.exit(code)
end

-- Swap the implementation (a simulator); unspecified functions keep the current ones.
function M.install(impl)
  for k, v in pairs(impl) do M[k] = v end
  return M
end

return M
