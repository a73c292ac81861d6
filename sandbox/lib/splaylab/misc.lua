--[[
splaylab.misc - SPLAY's misc ("splay.misc" and the global `misc`): small helpers.

  misc.between_c(i, a, b)                 SPLAY's own: i strictly inside the circular interval
                                          (a, b); a == b is an empty interval, as SPLAY's
                                          (pastry.lua's leaf-set range relies on it)
  misc.between_c(i, a, b, incl_a, incl_b) the paper's 5-argument `between` (Listing 1): there
                                          a == b means the whole ring but a itself
  misc.time()                             wall clock (seconds, float) from the platform layer
  misc.random_pick(t [, n])               one random element, or a list of n distinct ones
  misc.random_pick_one(t), misc.shuffle(t) (a shuffled copy), misc.dup(t) (deep copy),
  misc.split(s, sep), misc.size(t), misc.empty(t), misc.merge(t1, t2, ...),
  misc.isort(t), misc.reverse(t), misc.to_string(v) (a table's text; a number: see below)
SPLAY's other helpers, as SPLAY's misc has them: misc.to_int(bytes) and misc.to_string(n [, size])
(big-endian integers, size 4 by default), misc.hash_ascii_to_byte(hex), misc.gen_string(n [, s]),
misc.isize(t), misc.table_keyset(t), misc.table_concat(t1, t2), misc.equals(a, b) (= equal),
misc.dec_to_base(n, b), misc.base_to_dec(s, b), misc.convert_base(s, b1, b2),
misc.stringify(v), misc.assert_object(o), misc.assert_function(f), misc.throw(name, v),
misc.try(f, handlers), misc.random_peek_one (scribe.lua's name of random_pick_one), misc.ctime()
(= time), misc.to_dec_string(n) (digits without an exponent), misc.bitcalc(bytes) (the size in
bits, kilobytes, megabits, ...), misc.set() (a list without duplicates: set:insert/remove,
and FIFOs by key: set:push(key, x), set:pop(key)).
Not given: SPLAY's misc.call and misc.run (they compile text in the runtime's globals).
Randomness comes from math.random, seeded per node by node.lua / splay.base.
]]
local platform = require "splaylab.platform"

local M = { _NAME = "splaylab.misc", _VERSION = "0.2" }

local type, pairs, ipairs, next, tostring, tonumber, random, floor, sort, concat =
  type, pairs, ipairs, next, tostring, tonumber, math.random, math.floor, table.sort, table.concat
local assert, error, pcall, setmetatable = assert, error, pcall, setmetatable
local find, sub, format = string.find, string.sub, string.format

function M.time() return platform.now() end
M.ctime = M.time

function M.between_c(i, a, b, incl_a, incl_b)
  -- SPLAY's 3-argument between_c, to the letter: a == b holds nothing. SPLAY's pastry.lua
  -- widens its leaf-set range by one on each side of its 128-bit id (min - 1, max + 1), which
  -- doubles cannot tell apart: with "the whole ring" every key fell in an empty leaf set.
  if incl_a == nil and incl_b == nil then
    if b >= a then return i > a and i < b end
    return i > a or i < b
  end
  if incl_a and i == a then return true end
  if incl_b and i == b then return true end
  if a < b then return i > a and i < b end
  if a > b then return i > a or i < b end
  return i ~= a      -- a == b: the whole ring except a
end

function M.random_pick_one(t)
  if #t == 0 then return nil end
  return t[random(1, #t)]
end
M.random_peek_one = M.random_pick_one

function M.shuffle(t)
  local r = {}
  for i = 1, #t do r[i] = t[i] end
  for i = #r, 2, -1 do
    local j = random(1, i)
    r[i], r[j] = r[j], r[i]
  end
  return r
end

-- random_pick(t): one element; random_pick(t, n): min(n, #t) distinct elements (a list).
function M.random_pick(t, n)
  if n == nil then return M.random_pick_one(t) end
  local s = M.shuffle(t)
  local r = {}
  for i = 1, math.min(n, #s) do r[i] = s[i] end
  return r
end

function M.dup(v, seen)
  if type(v) ~= "table" then return v end
  seen = seen or {}
  if seen[v] then return seen[v] end
  local r = {}
  seen[v] = r
  for k, x in pairs(v) do r[M.dup(k, seen)] = M.dup(x, seen) end
  return r
end

function M.split(s, sep)
  sep = sep or " "
  local r, pos = {}, 1
  if s == "" then return r end
  while true do
    local a, b = find(s, sep, pos, true)
    if not a then r[#r + 1] = sub(s, pos); break end
    r[#r + 1] = sub(s, pos, a - 1)
    pos = b + 1
  end
  return r
end

function M.size(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

function M.empty(t) return next(t) == nil end

-- merge: list parts are appended in order, other keys copied (later tables win).
function M.merge(...)
  local r = {}
  for _, t in ipairs({ ... }) do
    local n = #t
    for i = 1, n do r[#r + 1] = t[i] end
    for k, v in pairs(t) do
      if not (type(k) == "number" and k >= 1 and k <= n and floor(k) == k) then r[k] = v end
    end
  end
  return r
end

function M.isort(t) sort(t); return t end

function M.reverse(t)
  local r = {}
  for i = #t, 1, -1 do r[#r + 1] = t[i] end
  return r
end

local byte, char, upper = string.byte, string.char, string.upper

function M.to_int(s)
  local v = 0
  for i = 1, #s do v = v * 256 + byte(s, i) end
  return v
end

-- SPLAY's to_string(int [, size]): the integer as `size` big-endian bytes
local function int_bytes(int, size)
  local out = {}
  for i = (size or 4) - 1, 0, -1 do
    local unit = 256 ^ i
    out[#out + 1] = char(floor(int / unit) % 256)
    int = int % unit
  end
  return concat(out)
end

function M.hash_ascii_to_byte(s)
  return (s:gsub("%x%x", function(h) return char(tonumber(h, 16)) end))
end

function M.gen_string(times, s)
  if type(times) == "string" then times, s = s, times end
  return string.rep(s or "a", times)
end

function M.isize(t)
  local c = 0
  for i in pairs(t) do if type(i) == "number" and i > c then c = i end end
  return c
end

function M.table_keyset(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  return keys
end

function M.table_concat(t1, t2)
  if not t1 and not t2 then return {} end
  if not t1 then return t2 end
  if not t2 then return t1 end
  local t = M.dup(t1)
  for _, e in pairs(M.dup(t2)) do t[#t + 1] = e end
  return t
end

function M.equals(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  for k, v in pairs(a) do if not M.equals(v, b[k]) then return false end end
  for k, v in pairs(b) do if not M.equals(v, a[k]) then return false end end
  return true
end
M.equal = M.equals

local DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
function M.dec_to_base(input, b)
  if input == 0 then return "0" end
  local out = ""
  while input > 0 do
    local d = input % b + 1
    input = floor(input / b)
    out = sub(DIGITS, d, d) .. out
  end
  return out
end

function M.base_to_dec(input, b)
  return tonumber(upper(tostring(input)), b)
end

function M.convert_base(input, b1, b2)
  return M.dec_to_base(M.base_to_dec(input, b1 or 10), b2 or 16)
end

function M.stringify(v)
  if type(v) == "table" then
    local parts = {}
    for k, x in pairs(v) do parts[#parts + 1] = "[" .. M.stringify(k) .. "] = " .. M.stringify(x) .. "," end
    return "{" .. concat(parts) .. "}"
  elseif type(v) == "string" then
    return "'" .. v:gsub(".", function(c) return "\\" .. byte(c) end) .. "'"
  elseif type(v) == "number" or type(v) == "boolean" or v == nil then
    return tostring(v)
  end
  return type(v) == "function" and "'*ERR_FUNCTION*'" or "'*ERR_UNKNOWN*'"
end

function M.assert_function(f)
  return function(...) return assert(f(...)) end
end

function M.assert_object(object)
  return setmetatable({}, { __index = function(_, key)
    local v = object[key]
    if type(v) ~= "function" then return v end
    return function(...) return assert(v(...)) end
  end })
end

function M.throw(name, value) error({ exception = { name, value } }, 0) end

function M.try(f, handlers)
  local ok, err = pcall(f)
  if ok then return end
  if type(err) ~= "table" or not err.exception then error(err, 0) end
  local handler = handlers[err.exception[1]]
  if not handler then error(err, 0) end
  handler(err.exception[2])
end

-- a table's text (SplayLab); a number keeps SPLAY's meaning: its big-endian bytes
local function pretty(v, depth)
  if type(v) == "string" then return format("%q", v) end
  if type(v) ~= "table" then return tostring(v) end
  if depth > 8 then return "{...}" end
  local parts = {}
  for k, x in pairs(v) do parts[#parts + 1] = "[" .. pretty(k, depth + 1) .. "]=" .. pretty(x, depth + 1) end
  sort(parts)
  return "{" .. concat(parts, ", ") .. "}"
end

function M.to_string(v, depth)
  if type(v) == "number" then return int_bytes(v, depth) end
  return pretty(v, depth or 0)
end

-- SPLAY's to_dec_string: a number's integer digits without an exponent ("1e+20" -> 1 and 20 zeros)
function M.to_dec_string(n)
  local s = format("%.0f", tonumber(n))
  if not find(s, "e", 1, true) then return s end
  local sign, digits, frac, exp = s:match("^(-?)(%d)%.?(%d*)e%+?(%-?%d+)$")
  exp = tonumber(exp)
  if exp < 0 then return "0" end
  local m = digits .. frac
  return sign .. m .. string.rep("0", exp - #frac)
end

-- SPLAY's bitcalc: a size in bytes in other units (1 kilobyte = 1024 bytes)
function M.bitcalc(bytes)
  local kb = bytes / 1024
  local mb = kb / 1024
  local gb = mb / 1024
  return { bytes = bytes, bits = bytes * 8, kilobytes = kb, kilobits = bytes / 128, megabytes = mb,
    megabits = kb / 128, gigabytes = gb, gigabits = mb / 128, terabytes = gb / 1024,
    petabytes = gb / 1024 / 1024 }
end

-- SPLAY's set (from Copas): a list without duplicates, and FIFOs by key
local SET = {}
function SET.insert(set, value)
  local reverse = getmetatable(set).reverse
  if not reverse[value] then
    set[#set + 1] = value
    reverse[value] = #set
  end
end
function SET.remove(set, value)
  local reverse = getmetatable(set).reverse
  local index = reverse[value]
  if not index then return end
  reverse[value] = nil
  local top = set[#set]
  set[#set] = nil
  if top ~= value then
    reverse[top] = index
    set[index] = top
  end
end
function SET.push(set, key, item)
  local q = getmetatable(set).q
  q[key] = q[key] or {}
  q[key][#q[key] + 1] = item
end
function SET.pop(set, key)
  local q = getmetatable(set).q
  local list = q[key]
  if not list then return nil end
  local item = table.remove(list, 1)
  if list[1] == nil then q[key] = nil end
  return item
end
function M.set()
  return setmetatable({}, { __index = SET, reverse = {}, q = {} })
end

return M
