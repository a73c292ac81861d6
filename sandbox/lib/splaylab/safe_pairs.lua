--[[
splaylab.safe_pairs - pairs and next that never take LuaJIT's specialised table walk.

LuaJIT 2.1 turns `for k, v in pairs(t)` (and `in next, t`) into a specialised loop (ISNEXT /
ITERN). When the JIT later blacklists such a loop, it patches it back to a plain one while a
walk may be under way, and that walk ends early or skips an entry: LuaJIT issue #827 (fixed
upstream in April 2022, after the 2.1.0~beta3+git20220320 that Debian 12 ships) and #1510 (2026).
Measured here: #827's reduced case ends 59,443 of 100,000 walks early. In a node it would drop
table entries at random, in the runtime's loops and in students' code alike.

The specialisation is taken only when the loop's iterator is the builtin `next`. node.lua and
sim.lua load this module before anything else: the process's pairs and next become Lua
functions over the builtin, every loop walks through a plain call, and the JIT still compiles
it (the call is inlined). Same results, same order, same errors with the builtins' words.

The runtime's own hot walks (benc_copy, trace, rpc_conn, rpcq, the simulator's kernel) skip the
wrapper's call: they walk with this module's `next_builtin` in a loop whose iterator is named
neither `next` nor `pairs` (`for k, v in nxt, t`), which the parser never makes an ITERN loop.
]]
-- luacheck: globals pairs next
local next_builtin, type, error, select = next, type, error, select

local function walk(t, k) return next_builtin(t, k) end

local function refuse(name, ...)
  local got = select("#", ...) == 0 and "no value" or type((...))
  error("bad argument #1 to '" .. name .. "' (table expected, got " .. got .. ")", 3)
end

function pairs(...)
  local t = ...
  if type(t) ~= "table" then refuse("pairs", ...) end
  return walk, t, nil
end

function next(...)
  local t, k = ...
  if type(t) ~= "table" then refuse("next", ...) end
  return next_builtin(t, k)
end

return { next_builtin = next_builtin }
