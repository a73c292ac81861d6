--[[
splaylab.sim.world - one node's own instance of the runtime, inside the simulator's process.

Every splaylab module is compiled once (its prototypes are shared) and run once per node with
that node's `require`, `math` and `_G` as locals, so each node has its own events loop, sockets,
rpc state and random numbers: no Lua value of one node is reachable from another's modules.
C modules (cjson, bit, lfs) hold no per-node state and are shared. `math` is a copy whose
random/randomseed draw from the node's own generator (Park-Miller minimal standard: the
process-wide math.random would make a node's draws depend on the others').

Usage: local world = require("splaylab.sim.world")
  world.init(lib_dir)                       -- sandbox/lib
  local w = world.new(preset, seed, globals)  -- modules given as they are, the node's seed, more globals
  w.require("splaylab.boot")
]]
local M = { _NAME = "splaylab.sim.world", _VERSION = "0.1" }

local floor, pairs, setmetatable, error, tonumber = math.floor, pairs, setmetatable, error, tonumber
local lib_dir = "."
local factories = {}

function M.init(dir) lib_dir = dir end

local function factory(name)
  local f = factories[name]
  if f then return f end
  local path = lib_dir .. "/" .. name:gsub("%.", "/") .. ".lua"
  local fh = assert(io.open(path, "rb"))
  local src = fh:read("*a")
  fh:close()
  -- on the chunk's first line: line numbers stay those of the file
  f = assert(loadstring("local require, math, _G = ... " .. src, "@" .. path))
  factories[name] = f
  return f
end

local M31 = 2147483647

--- A math table of its own: math.* with random/randomseed on a private generator.
function M.new_math(seed)
  local m = {}
  for k, v in pairs(math) do m[k] = v end
  local state = 1
  function m.randomseed(s)
    state = floor(tonumber(s) or 0) % (M31 - 1) + 1
  end
  function m.random(a, b)
    state = (state * 48271) % M31
    local r = (state - 1) / (M31 - 1)
    if a == nil then return r end
    if b == nil then a, b = 1, a end
    a, b = floor(a), floor(b)
    if a > b then error("bad argument #1 to 'random' (interval is empty)", 2) end
    return a + floor(r * (b - a + 1))
  end
  m.randomseed(seed or 1)
  return m
end

-- globals: more of the node's own globals (the simulator's virtual-time `os`)
function M.new(preset, seed, globals)
  local loaded = {}
  for k, v in pairs(preset or {}) do loaded[k] = v end
  local node_math = M.new_math(seed)
  local node_G = setmetatable({ math = node_math }, { __index = _G })
  for k, v in pairs(globals or {}) do node_G[k] = v end
  local function req(name)
    local m = loaded[name]
    if m ~= nil then return m end
    if name:match("^splaylab%.") then
      m = factory(name)(req, node_math, node_G)
      if m == nil then m = true end
    else
      m = require(name)
    end
    loaded[name] = m
    return m
  end
  return { require = req, loaded = loaded, math = node_math, G = node_G }
end

return M
