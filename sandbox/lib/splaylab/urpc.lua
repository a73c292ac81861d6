--[[
splaylab.urpc - "splay.urpc": splay.rpc's API over UDP (one datagram per request and reply).

  urpc.server(port | node), urpc.call, urpc.acall / a_call, urpc.ecall, urpc.ping, urpc.proxy
Same call forms and results as splaylab.rpc. Requests carry an id; the client resends every
timeout / settings.tries seconds until a reply with that id arrives or the timeout passes
(at-least-once: a slow server may run a request twice). Replies come back to one client UDP
socket per node, read by a thread that exists only while calls are pending (an idle node can
still end). Limits: a request or reply must fit in one datagram (settings.max_datagram, 8 KB);
UDP datagrams obey udp_drop_ratio like any other.
In the simulator a call takes the message fast path (splaylab.rpc_fast: copies instead of
datagrams, the same rules, draws and losses) unless it runs with --sim-transport sockets.
]]
local events_core = require "splaylab.events_core"
local core = require "splaylab.urpc_core"
local rpc = require "splaylab.rpc"

local M = { _NAME = "splaylab.urpc", _VERSION = "0.2",
  settings = { default_timeout = 60, tries = 3, max_datagram = 8192 } }

-- The functions are splaylab.urpc_core's, one set for every node (in the simulator); this node's
-- state, in its events state (runtime side, out of the app's reach):
local events = require "splaylab.events"
events_core.state_of(events)[events_core.ST.URPC] = {
  M = M, events = events, socket = require "splaylab.socket", benc = require "splaylab.benc",
  platform = require "splaylab.platform", trace = require "splaylab.trace", rpc = rpc,
  log = require("splaylab.log").new(1, "[splay.urpc]"),
  -- the client side: one UDP socket (or, on the fast path, a box) for every call's replies
  client = nil, pending = {}, npending = 0, reader = nil, next_id = 0, fast_box = nil, fast_reader = nil,
}
for name, f in pairs(core.api) do M[name] = f end
rpc.client_api(M)

return M
