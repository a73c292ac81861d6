--[[
splaylab.sim.world - one node's own instance of the runtime, inside the simulator's process.

Every splaylab module is compiled once (its prototypes are shared) and run once per node with
that node's `require`, `math` and `_G` as locals, so each node has its own events loop, sockets,
rpc state and random numbers: no Lua value of one node is reachable from another's modules.
C modules (cjson, bit, lfs) hold no per-node state and are shared, and so are the runtime
modules whose functions take a node's state from it (M.PROCESS_WIDE: splaylab.events_core's
header says how they keep nodes apart). `math` is a copy whose
random/randomseed draw from the node's own generator (LuaJIT's own algorithm: the process-wide
math.random would make a node's draws depend on the others').

Usage: local world = require("splaylab.sim.world")
  world.init(lib_dir)                       -- sandbox/lib
  local w = world.new(preset, seed, globals)  -- modules given as they are, the node's seed, more globals
  w.require("splaylab.boot")
]]
local M = { _NAME = "splaylab.sim.world", _VERSION = "0.1" }

local floor, pairs, setmetatable, error, tonumber = math.floor, pairs, setmetatable, error, tonumber
local lib_dir = "."
local factories = {}

-- loaded once for the process (its `require`), not per node
M.PROCESS_WIDE = { ["splaylab.events_core"] = true, ["splaylab.events_loop"] = true, ["splaylab.events_sim"] = true,
  ["splaylab.rpc_fast"] = true, ["splaylab.socket_policy_core"] = true,
  ["splaylab.netem_core"] = true, ["splaylab.trace_core"] = true,
  ["splaylab.rpc_conn_core"] = true, ["splaylab.rpc_core"] = true,
  ["splaylab.urpc_core"] = true }

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

-- LuaJIT's own math.random (lib_math.c: Tausworthe TW223 on four 64-bit states, seeded from
-- a double as random_init does), one state per node: a simulated node draws exactly the numbers
-- the same node draws live with the same seed, so a live run and its simulation build the same
-- experiment (the same Chord ids, ...). Checked against math.random by spec/sim_world_spec.lua.
-- Each 64-bit state is two 32-bit halves (hi, lo) in plain numbers: 64-bit FFI cdata here
-- crashed this LuaJIT (a segfault in a long simulation, with the collector's pause at 150).
local ffi = require "ffi"
local bit = require "bit"
local lshift, rshift, bxor, band, bor = bit.lshift, bit.rshift, bit.bxor, bit.band, bit.bor
local type = type
local TWO32, TWO52 = 4294967296, 4503599627370496

-- one TW223 component: z = (((z << q) ^ z) >> (k - s)) ^ ((z & (~0 << (64 - k))) << s), with
-- q, s < 32 <= k - s except for the second component (k - s = 30): `split` says which
local function component(hi, lo, q, right, mask_lo, s)
  local xh = bxor(bor(lshift(hi, q), rshift(lo, 32 - q)), hi)   -- (z << q) ^ z
  local xl = bxor(lshift(lo, q), lo)
  local ah, al
  if right >= 32 then ah, al = 0, rshift(xh, right - 32)
  else ah, al = rshift(xh, right), bor(rshift(xl, right), lshift(xh, 32 - right)) end
  local ml = band(lo, mask_lo)                                    -- z & (~0 << (64 - k)), hi kept whole
  return bxor(ah, bor(lshift(hi, s), rshift(ml, 32 - s))), bxor(al, lshift(ml, s))
end

local function number_arg(v, i, name)
  local n = tonumber(v)
  if n == nil then
    error(("bad argument #%d to '%s' (number expected, got %s)"):format(i, name, v == nil and "no value" or type(v)), 3)
  end
  return n
end

local double_words = ffi.new("union { double d; uint32_t w[2]; }")   -- little-endian: w[0] low

--- A math table of its own: math.* with random/randomseed on a private generator.
function M.new_math(seed)
  local m = {}
  for k, v in pairs(math) do m[k] = v end
  local h0, l0, h1, l1, h2, l2, h3, l3 = 0, 0, 0, 0, 0, 0, 0, 0
  local function step()   -- a double in [0, 1)
    h0, l0 = component(h0, l0, 31, 45, -2, 18)                   -- k 63, q 31, s 18
    h1, l1 = component(h1, l1, 19, 30, lshift(-1, 6), 28)        -- k 58, q 19, s 28
    h2, l2 = component(h2, l2, 24, 48, lshift(-1, 9), 7)         -- k 55, q 24, s 7
    h3, l3 = component(h3, l3, 21, 39, lshift(-1, 17), 8)        -- k 47, q 21, s 8
    local hi, lo = bxor(h0, h1, h2, h3), bxor(l0, l1, l2, l3)
    return (band(hi, 0xfffff) * TWO32 + lo % TWO32) / TWO52      -- the low 52 bits as a fraction
  end
  function m.randomseed(s)
    local d = number_arg(s, 1, "randomseed")
    local r, gen = 0x11090601, {}
    for i = 1, 4 do
      local least = lshift(1, band(r, 255))   -- the state's top bits must not all be 0
      r = rshift(r, 8)
      d = d * 3.14159265358979323846 + 2.7182818284590452354
      double_words.d = d
      local hi, lo = tonumber(double_words.w[1]), tonumber(double_words.w[0])
      if hi == 0 and lo < least then lo = lo + least end
      gen[2 * i - 1], gen[2 * i] = bit.tobit(hi), bit.tobit(lo)
    end
    h0, l0, h1, l1, h2, l2, h3, l3 = unpack(gen)
    for _ = 1, 10 do step() end
  end
  function m.random(a, b)
    local d = step()
    if a == nil then return d end
    a = number_arg(a, 1, "random")
    if b == nil then return floor(d * a) + 1.0 end
    b = number_arg(b, 2, "random")
    return floor(d * (b - a + 1.0)) + a
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
    if name:match("^splaylab%.") and not M.PROCESS_WIDE[name] then
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
