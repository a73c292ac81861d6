--[[
splaylab.benc_copy - decode(encode(v)) of splaylab.benc without the bytes: the simulator's
message fast path (splaylab.rpc_fast) hands the peer this copy and charges the network model
its encoded size.

  copy(v) -> decode(encode(v)), #encode(v)   raises what encode(v) raises
  digits(n) -> #format("%d", n)              for an integer 0 <= n < 2^53

The same walk as benc's encoder, in the same pairs order (so the copy's tables are built by
the same insertions as the decoder's), with the same errors (functions, userdata, threads,
cycles, nesting deeper than benc.settings.max_depth). What the round trip changes the copy
changes too: -0 becomes 0, NaN the decoder's NaN, a table reached twice (shared, not cyclic)
two tables, nil values (holes) vanish, metatables are dropped. spec/benc_copy_spec.lua checks
it against the codec on generated values. Runtime side only: apps see splay.benc unchanged.
]]
local benc = require "splaylab.benc"

local M = { _NAME = "splaylab.benc_copy", _VERSION = "0.1" }

local type, pairs, error, floor, format = type, pairs, error, math.floor, string.format
local huge = math.huge
local NAN = 0 / 0   -- what the decoder reads for "rnan;"

local function digits(n)
  local d, p = 1, 10
  while n >= p do d, p = d + 1, p * 10 end
  return d
end
M.digits = digits

local function cp(v, depth, seen)
  local t = type(v)
  if t == "string" then
    local n = #v
    return v, digits(n) + 1 + n                       -- "<len>:<bytes>"
  elseif t == "number" then
    if v ~= v then return NAN, 5                      -- "rnan;"
    elseif v == huge then return v, 5                 -- "rinf;"
    elseif v == -huge then return v, 6                -- "r-inf;"
    elseif floor(v) == v and v > -2 ^ 53 and v < 2 ^ 53 then
      if v < 0 then return v, 3 + digits(-v) end      -- "i-<d>e"
      return v + 0 == 0 and 0 or v, 2 + digits(v)     -- "i<d>e" (of -0 reads back 0)
    end
    return v, 2 + #format("%.17g", v)                 -- "r<%.17g>;" reads back v exactly
  elseif t == "boolean" or t == "nil" then
    return v, 1
  elseif t == "table" then
    if depth > benc.settings.max_depth then error("benc: table nested too deeply", 0) end
    if seen[v] then error("benc: cannot encode a table with cycles", 0) end
    seen[v] = true
    local out, size = {}, 2                           -- "d" ... "e"
    for k, x in pairs(v) do
      local ck, ks = cp(k, depth + 1, seen)
      local cx, xs = cp(x, depth + 1, seen)
      out[ck] = cx
      size = size + ks + xs
    end
    seen[v] = nil
    return out, size
  end
  error("benc: cannot encode a " .. t, 0)
end

function M.copy(v)
  return cp(v, 0, {})
end

return M
