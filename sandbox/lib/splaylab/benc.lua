--[[
splaylab.benc - SPLAY's serializer ("splay.benc"): bencoding extended to every Lua value
RPC carries. encode(v) -> string; decode(s) -> v (raises "benc: ..." on malformed input).

  nil "n"  true "t"  false "f"  integer "i<d>e"  other number "r<%.17g>;" (also inf, nan)
  string "<len>:<bytes>"  table "d" (key value)* "e"   (any key type; holes and nils kept)
Limits: functions, userdata and threads are refused; cycles are refused; nesting depth at
most settings.max_depth (decode too), so a peer cannot exhaust the C stack.
]]
local M = { _NAME = "splaylab.benc", _VERSION = "0.1", settings = { max_depth = 100 } }

local type, tonumber, pairs, error, floor = type, tonumber, pairs, error, math.floor
local sub, find, format, byte = string.sub, string.find, string.format, string.byte
local concat = table.concat
local huge = math.huge

local function enc(v, out, depth, seen)
  local t = type(v)
  if t == "string" then
    out[#out + 1] = #v .. ":" .. v
  elseif t == "number" then
    if v ~= v then out[#out + 1] = "rnan;"
    elseif v == huge then out[#out + 1] = "rinf;"
    elseif v == -huge then out[#out + 1] = "r-inf;"
    elseif floor(v) == v and v > -2 ^ 53 and v < 2 ^ 53 then out[#out + 1] = format("i%de", v)
    else out[#out + 1] = format("r%.17g;", v) end
  elseif t == "boolean" then
    out[#out + 1] = v and "t" or "f"
  elseif t == "nil" then
    out[#out + 1] = "n"
  elseif t == "table" then
    if depth > M.settings.max_depth then error("benc: table nested too deeply", 0) end
    if seen[v] then error("benc: cannot encode a table with cycles", 0) end
    seen[v] = true
    out[#out + 1] = "d"
    for k, x in pairs(v) do
      enc(k, out, depth + 1, seen)
      enc(x, out, depth + 1, seen)
    end
    out[#out + 1] = "e"
    seen[v] = nil
  else
    error("benc: cannot encode a " .. t, 0)
  end
end

function M.encode(v)
  local out = {}
  enc(v, out, 0, {})
  return concat(out)
end

local SPECIAL = { nan = 0 / 0, inf = huge, ["-inf"] = -huge }

local function dec(s, pos, depth)
  local c = sub(s, pos, pos)
  if c == "n" then return nil, pos + 1 end
  if c == "t" then return true, pos + 1 end
  if c == "f" then return false, pos + 1 end
  if c == "i" or c == "r" then
    local e = find(s, c == "i" and "e" or ";", pos + 1, true)
    if not e then error("benc: unterminated number at " .. pos, 0) end
    local text = sub(s, pos + 1, e - 1)
    local v = tonumber(text) or SPECIAL[text]
    if not v then error("benc: bad number at " .. pos, 0) end
    return v, e + 1
  end
  if c == "d" then
    if depth > M.settings.max_depth then error("benc: table nested too deeply", 0) end
    local t = {}
    pos = pos + 1
    while true do
      if byte(s, pos) == 101 then return t, pos + 1 end   -- "e"
      if pos > #s then error("benc: unterminated table", 0) end
      local k, v
      k, pos = dec(s, pos, depth + 1)
      v, pos = dec(s, pos, depth + 1)
      if k == nil or k ~= k then error("benc: nil or nan key", 0) end
      t[k] = v
    end
  end
  local colon = find(s, ":", pos, true)
  local len = colon and tonumber(sub(s, pos, colon - 1))
  if not len or colon - pos > 12 then error("benc: bad value at " .. pos, 0) end
  if colon + len > #s then error("benc: truncated string at " .. pos, 0) end
  return sub(s, colon + 1, colon + len), colon + len + 1
end

function M.decode(s)
  if type(s) ~= "string" then error("benc: string expected", 2) end
  local v, pos = dec(s, 1, 0)
  if pos ~= #s + 1 then error("benc: trailing data at " .. pos, 0) end
  return v
end

return M
