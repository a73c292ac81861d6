--[[
splaylab.misc - SPLAY's misc ("splay.misc" and the global `misc`): small helpers.

  misc.between_c(i, a, b)                 i strictly inside the circular interval (a, b);
                                          a == b means the whole ring but a itself
  misc.between_c(i, a, b, incl_a, incl_b) the paper's 5-argument `between` (Listing 1)
  misc.time()                             wall clock (seconds, float) from the platform layer
  misc.random_pick(t [, n])               one random element, or a list of n distinct ones
  misc.random_pick_one(t), misc.shuffle(t) (a shuffled copy), misc.dup(t) (deep copy),
  misc.split(s, sep), misc.size(t), misc.empty(t), misc.merge(t1, t2, ...),
  misc.isort(t), misc.reverse(t), misc.to_string(v)
Randomness comes from math.random, seeded per node by node.lua / splay.base.
]]
local platform = require "splaylab.platform"

local M = { _NAME = "splaylab.misc", _VERSION = "0.2" }

local type, pairs, ipairs, next, tostring, random, floor, sort, concat =
  type, pairs, ipairs, next, tostring, math.random, math.floor, table.sort, table.concat
local find, sub, format = string.find, string.sub, string.format

function M.time() return platform.now() end

function M.between_c(i, a, b, incl_a, incl_b)
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

function M.to_string(v, depth)
  depth = depth or 0
  if type(v) == "string" then return format("%q", v) end
  if type(v) ~= "table" then return tostring(v) end
  if depth > 8 then return "{...}" end
  local parts = {}
  for k, x in pairs(v) do parts[#parts + 1] = "[" .. M.to_string(k, depth + 1) .. "]=" .. M.to_string(x, depth + 1) end
  sort(parts)
  return "{" .. concat(parts, ", ") .. "}"
end

return M
