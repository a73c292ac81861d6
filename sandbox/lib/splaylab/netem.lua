--[[
splaylab.netem - this node's emulated wide-area network: an object of splaylab.netem_core
(whose header lists its methods), over the node's platform. Runtime side only; one per node
(live, one per process).
]]
return require("splaylab.netem_core").new(require "splaylab.platform")
