--[[
splaylab.rpc_conn - this node's pool of splay.rpc client connections: an object of
splaylab.rpc_conn_core (whose header lists its methods), over the node's socket, llenc and
platform. Runtime only; one per node (live, one per process).
]]
local core = require "splaylab.rpc_conn_core"
return core.new(require "splaylab.socket", require "splaylab.llenc", require "splaylab.platform")
