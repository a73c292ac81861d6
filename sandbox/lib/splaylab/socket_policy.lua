--[[
splaylab.socket_policy - this node's socket policy: an object of splaylab.socket_policy_core
(whose header lists its methods and rules), over the node's platform and a logger of its own.
Runtime side only; one per node (live, one per process).
]]
local core = require "splaylab.socket_policy_core"
return core.new(require "splaylab.platform", require("splaylab.log").new(1, "[splay.socket]"))
