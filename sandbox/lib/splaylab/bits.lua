--[[
splaylab.bits - "splay.bits": SPLAY's bit tables, a Lua array of booleans (bit 1 is the most
significant bit of the first byte), and ASCII strings read as such.

  bits.init(t, size)                    t[1..size] = false
  bits.ascii_to_bits(s [, max_length]) -> bit table (nil for nil)
  bits.bits_to_ascii(t) -> string       8 bits a character, the last one padded with 0s
  bits.show_bits(t | s) -> "01000001 ..."
  bits.is_set(t | s, i) -> bool          bits.count(t | s) -> number of 1s
  bits.size(t | s) -> number of entries  bits.set(t, i) (deprecated in SPLAY)
Byte operations come from LuaJIT's bit library (the same as `bit` of student code).
]]
local bit = require "bit"

local M = { _NAME = "splaylab.bits", _VERSION = "1.0", _DESCRIPTION = "Bits manipulation" }

local band, lshift, bor = bit.band, bit.lshift, bit.bor
local byte, char, concat, type, pairs = string.byte, string.char, table.concat, type, pairs

function M.init(bits, size)
  for i = 1, size do bits[i] = false end
end

function M.ascii_to_bits(s, max_length)
  if not s then return nil end
  max_length = max_length or #s * 8
  local bits, b = {}, 1
  for i = 1, #s do
    local v = byte(s, i)
    for shift = 7, 0, -1 do
      if b > max_length then return bits end
      bits[b] = band(v, lshift(1, shift)) ~= 0
      b = b + 1
    end
  end
  return bits
end

function M.bits_to_ascii(bits)
  if not bits then return nil end
  local out = {}
  for i = 1, #bits, 8 do
    local v = 0
    for j = 0, 7 do
      v = lshift(v, 1)
      if bits[i + j] then v = bor(v, 1) end
    end
    out[#out + 1] = char(v)
  end
  return concat(out)
end

local function as_bits(bits)
  if type(bits) == "string" then return M.ascii_to_bits(bits) end
  return bits
end

function M.show_bits(bits)
  bits = as_bits(bits)
  local out = {}
  for i = 1, #bits do
    out[#out + 1] = bits[i] == true and "1" or "0"
    if i % 8 == 0 then out[#out + 1] = " " end
  end
  return concat(out)
end

function M.is_set(bits, i) return as_bits(bits)[i] end

function M.count(bits)
  local c = 0
  for _, v in pairs(as_bits(bits)) do if v == true then c = c + 1 end end
  return c
end

function M.size(bits)
  local c = 0
  for _ in pairs(as_bits(bits)) do c = c + 1 end
  return c
end

function M.set(bits, i) bits[i] = true end

return M
