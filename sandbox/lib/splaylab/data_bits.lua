--[[
splaylab.data_bits - "splay.data_bits": SPLAY's bit operations on binary strings (Bloom
filters...), with SPLAY's C module's API and results; the byte operations are LuaJIT's bit library.
Bit v (from 0) is bit v % 8 (from the least significant) of byte v // 8 (from 0).

  dnot(s) -> s'            dor(a, b), dand(a, b) -> s' (a and b of the same length)
  cardinality(s) -> number of 1 bits
  set_bit(s, v), unset_bit(s, v) -> s'       get_bit(s, v) -> 0 | 1
  pack(s) -> the positions of the 1 bits, each in k big-endian bytes (k = 1 for up to 256 bits,
             2 up to 65,536, ...)         unpack(packed, length_in_bytes) -> s
  from_string("SIZE_IN_BITS POS POS ...") -> s (SIZE a multiple of 8, at most 128 Mbit)
Bad arguments give nil and SPLAY's message (e.g. "invalid position"), as the C module did.
]]
local bit = require "bit"

local M = { _NAME = "splaylab.data_bits", _VERSION = "0.1", _DESCRIPTION = "Bits manipulation on data" }

local band, bor, bnot, lshift, rshift = bit.band, bit.bor, bit.bnot, bit.lshift, bit.rshift
local byte, char, sub, concat, type, tonumber, floor, gmatch =
  string.byte, string.char, string.sub, table.concat, type, tonumber, math.floor, string.gmatch

local function is_string(s) return type(s) == "string" or type(s) == "number" end

local function map(s, f)
  local out = {}
  for i = 1, #s do out[i] = char(band(f(byte(s, i), i), 255)) end
  return concat(out)
end

function M.dnot(s)
  if not is_string(s) then return nil, "dnot(string) requires a string." end
  return map(tostring(s), function(b) return bnot(b) end)
end

local function binary(name, op)
  return function(a, b)
    if not (is_string(a) and is_string(b)) then
      return nil, name .. "(string, string) requires 2 strings of the same length."
    end
    a, b = tostring(a), tostring(b)
    if #a ~= #b then return nil, "length of strings is not equal" end
    return map(a, function(x, i) return op(x, byte(b, i)) end)
  end
end
M.dor = binary("dor", bor)
M.dand = binary("dand", band)

function M.cardinality(s)
  if not is_string(s) then return nil, "cardinality(string) requires a string." end
  s = tostring(s)
  local total = 0
  for i = 1, #s do
    local v = byte(s, i)
    while v > 0 do total = total + band(v, 1); v = rshift(v, 1) end
  end
  return total
end

local function position(s, v, name)
  if not (is_string(s) and tonumber(v)) then
    return nil, name .. "(bf, position) requires a string and an int."
  end
  s, v = tostring(s), floor(tonumber(v))
  if v < 0 or v >= #s * 8 then return nil, "invalid position" end
  return s, v
end

local function with_bit(s, v, f)
  local i = floor(v / 8) + 1
  return sub(s, 1, i - 1) .. char(band(f(byte(s, i), lshift(1, v % 8)), 255)) .. sub(s, i + 1)
end

function M.set_bit(s, v)
  local str, pos = position(s, v, "set_bit")
  if not str then return nil, pos end
  return with_bit(str, pos, bor)
end

function M.unset_bit(s, v)
  local str, pos = position(s, v, "unset_bit")
  if not str then return nil, pos end
  return with_bit(str, pos, function(b, mask) return band(b, bnot(mask)) end)
end

function M.get_bit(s, v)
  local str, pos = position(s, v, "get_bit")
  if not str then return nil, pos end
  return band(byte(str, floor(pos / 8) + 1), lshift(1, pos % 8)) ~= 0 and 1 or 0
end

-- bytes per position for a filter of `bits` bits (the C module's loop)
local function position_size(bits)
  local k, t = 1, bits / 256
  while t > 1 do k = k + 1; t = t / 256 end
  return k
end

function M.pack(s)
  if not is_string(s) then return nil, "pack(bf) requires a string." end
  s = tostring(s)
  local k, out = position_size(#s * 8), {}
  for i = 0, #s - 1 do
    local b = byte(s, i + 1)
    for j = 0, 7 do
      if band(b, lshift(1, j)) ~= 0 then
        local v = i * 8 + j
        for d = k - 1, 0, -1 do
          local unit = 256 ^ d
          local digit = floor(v / unit)
          out[#out + 1] = char(digit)
          v = v - digit * unit
        end
      end
    end
  end
  return concat(out)
end

function M.unpack(packed, length)
  if not (is_string(packed) and tonumber(length)) then
    return nil, "unpack(bf_packed, bf_size) requires a string and an int."
  end
  packed, length = tostring(packed), floor(tonumber(length))
  local k, set = position_size(length * 8), {}
  for i = 1, #packed - k + 1, k do
    local v = 0
    for d = 0, k - 1 do v = v * 256 + byte(packed, i + d) end
    if v >= length * 8 then return nil, "invalid position" end
    local at = floor(v / 8) + 1
    set[at] = bor(set[at] or 0, lshift(1, v % 8))
  end
  local out = {}
  for i = 1, length do out[i] = char(set[i] or 0) end
  return concat(out)
end

function M.from_string(desc)
  if not is_string(desc) then return nil, "from_string(desc) requires a string." end
  local size, set = nil, {}
  for n in gmatch(tostring(desc), "%d+") do
    n = tonumber(n)
    if not size then
      if n > 128 * 1024 * 1024 or n % 8 ~= 0 then return nil, "max 128kbits (/ 8) bloomfilter" end
      size = n
    else
      if n >= size then return nil, "invalid position" end
      local at = floor(n / 8) + 1
      set[at] = bor(set[at] or 0, lshift(1, n % 8))
    end
  end
  if not size then return nil, "from_string(desc) requires a string." end
  local out = {}
  for i = 1, size / 8 do out[i] = char(set[i] or 0) end
  return concat(out)
end

return M
