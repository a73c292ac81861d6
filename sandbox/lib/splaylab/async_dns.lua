--[[
splaylab.async_dns - "splay.async_dns": SPLAY's non-blocking name resolution, answered from the
job's own address table, never from the host's resolver (a node must not learn or reach anything
outside its job, and a simulation must not depend on the machine).

  async_dns.toip(name) -> ip, {name, alias = {}, ip = {ip}} | nil, "host not found"
  async_dns.tohostname(ip) -> name, {name, alias = {}, ip = {ip}} | nil, "host not found"
  async_dns.gethostname() -> this node's name
Names: the node at position K of the job is "nodeK" (node1, node2, ...); "localhost" is
127.0.0.1; a dotted IPv4 address stands for itself. An address of several nodes (local runs
share 127.0.0.1) is named after the first of them.
Runtime side: async_dns.init{me_position, nodes = {{ip, port}...} in position order |
addresses = {["ip:port"] = position}} (boot.runtime_modules).
]]
local log = require "splaylab.log"

local M = { _NAME = "splaylab.async_dns", _VERSION = "0.1" }
M.l_o = log.new(3, "[splay.async_dns]")

local type, tostring, tonumber, pairs, ipairs = type, tostring, tonumber, pairs, ipairs
local match = string.match

local ip_of, name_of, my_name = {}, {}, "localhost"

function M.init(opts)
  ip_of, name_of = { localhost = "127.0.0.1" }, {}
  local function add(position, ip)
    local name = "node" .. position
    ip_of[name] = ip
    local known = name_of[ip]
    if not known or tonumber(match(known, "%d+")) > position then name_of[ip] = name end
  end
  for i, n in ipairs(opts.nodes or {}) do add(i, tostring(n.ip)) end
  for address, position in pairs(opts.addresses or {}) do
    add(position, match(address, "^([^:]+):"))
  end
  my_name = opts.me_position and ("node" .. opts.me_position) or "localhost"
end

local function info(name, ip) return { name = name, alias = {}, ip = { ip } } end

local function dotted(s) return type(s) == "string" and match(s, "^%d+%.%d+%.%d+%.%d+$") ~= nil end

function M.toip(name)
  name = tostring(name)
  if dotted(name) then return name, info(name_of[name] or name, name) end
  local ip = ip_of[name]
  if not ip then return nil, "host not found" end
  return ip, info(name, ip)
end

function M.tohostname(ip)
  ip = tostring(ip)
  if not dotted(ip) then
    local resolved = ip_of[ip]
    if not resolved then return nil, "host not found" end
    ip = resolved
  end
  local name = name_of[ip] or (ip == "127.0.0.1" and "localhost") or nil
  if not name then return nil, "host not found" end
  return name, info(name, ip)
end

function M.gethostname() return my_name end

return M
