--[[
splaylab.topo_socket - "splay.topo_socket": SPLAY's topology emulation around sockets. In
SplayLab every socket of a node is already shaped by the job's network model (docs/network.md:
`--net`, `--loss`, `--bandwidth`, `--partition`, live at the sender and in the simulator alike),
so this module keeps SPLAY's API and adds nothing on top: delays and bandwidth come from the one
model, and an app that wraps its socket behaves as the same app without the wrap.

  topo_socket.init(settings, nodes, topology, position) -> true
      | false, "no settings" | false, "init() already called"
  topo_socket.wrap(socket) -> socket (the same, already shaped by the network model)
Settings of SPLAY's emulation (in_delay, out_delay, bw_in, bw_out, a topology table) are not
applied: a warning says so, since the job's network model is what the job is measured under.
]]
local log = require "splaylab.log"

local M = { _NAME = "splaylab.topo_socket", _VERSION = "0.1" }
M.l_o = log.new(3, "[splay.topo_socket]")

local type, pairs = type, pairs
local IGNORED = { "in_delay", "out_delay", "bw_in", "bw_out" }
local init_done = false

function M.init(settings, _, topology, position)
  if init_done then return false, "init() already called" end
  init_done = true
  M.pos = position
  if not settings then return false, "no settings" end
  local ignored = {}
  for _, k in pairs(IGNORED) do
    if type(settings) == "table" and settings[k] ~= nil then ignored[#ignored + 1] = k end
  end
  if topology ~= nil then ignored[#ignored + 1] = "topology" end
  if ignored[1] then
    M.l_o:warning("not applied: " .. table.concat(ignored, ", ")
      .. " (the job's network model sets delays and bandwidth: docs/network.md)")
  end
  return true
end

function M.wrap(sock) return sock end

return M
