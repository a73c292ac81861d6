--[[
splaylab.trace - this node's message trace: an object of splaylab.trace_core (whose header
lists its methods and docs/trace.md its rows), over the node's platform. Runtime only; one per
node (live, one per process).
]]
return require("splaylab.trace_core").new(require "splaylab.platform")
