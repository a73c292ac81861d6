--[=[
splaylab.rpc - "splay.rpc": remote calls of the application's global functions over TCP.

  rpc.server(port | node [, max [, backlog]]) -> true | nil, err
  rpc.call(node, {'fn', a1, ...} | 'fn' [, timeout]) or rpc.call(ip, port, call [, timeout])
      -> fn's results | nil, err
  rpc.acall(...) / rpc.a_call(...) / rpc.a.call(...) -> true, {results, n = k} | false, err
  rpc.ecall(...) -> results, raises on failure
  rpc.ping(node [, timeout]) -> RTT in seconds | nil, err
  rpc.proxy(node) -> object; obj:fn(a, b) == rpc.call(node, {'fn', a, b})
Wire: TCP, frames of splaylab.llenc carrying
splaylab.benc: request {call = {...}, n = #args + 1}, reply {ok = true, r = {...}, n = k} or
{ok = false, err = "..."}. A request made for an operation (docs/trace.md) also carries
`ctx = {op, depth, f = the caller's position}`; when the node is traced, every call and served
call is a trace row. The server runs every request in its own events thread and looks the
function up by name (dotted names allowed) in settings.env, the application's environment
(node.lua sets it): any global function of the app is callable, nothing of the runtime is;
a name that is not a function called without arguments returns that global's value (SPLAY).
Connections: SPLAY opens one per call; SplayLab keeps a connection settings.keep_alive (2) s
after a call for the next call to the same node (splaylab.rpc_conn, "Connection reuse"; keep_alive = 0
gives SPLAY's behaviour). The server serves any number of requests per connection.
Timeout: settings.default_timeout (60 s) covers connect, send and the whole wait for the reply.
An error raised by the remote function comes back as nil, "remote error: ..." and is logged on
the server as a warning; the server keeps serving.
In the simulator a call takes the message fast path (splaylab.rpc_fast: copies instead of
bytes, the same rules, draws and failures) unless it runs with --sim-transport sockets.
]=]
local events_core = require "splaylab.events_core"
local core = require "splaylab.rpc_core"

local M = { _NAME = "splaylab.rpc", _VERSION = "0.2",
  settings = { default_timeout = 60, max = 1024, backlog = 128, idle_timeout = 60, env = nil,
    keep_alive = 2, pool_per_peer = 2, pool_max = 16 } }

-- The functions are splaylab.rpc_core's, one set for every node (in the simulator); this node's
-- state, in its events state (runtime side, out of the app's reach):
local conn = require "splaylab.rpc_conn"
events_core.state_of(require "splaylab.events")[events_core.ST.RPC] = {
  M = M, conn = conn, socket = require "splaylab.socket", llenc = require "splaylab.llenc",
  net = require "splaylab.net", benc = require "splaylab.benc", platform = require "splaylab.platform",
  trace = require "splaylab.trace", log = require("splaylab.log").new(1, "[splay.rpc]"),
}
for name, f in pairs(core.api) do M[name] = f end
M.client_api = core.client_api
M.client_api(M)
M.PING = core.PING
conn.rpc = M

return M
