--[[
splaylab.benc - SPLAY's serializer ("splay.benc"): bencoding extended to every Lua value
RPC carries. encode(v) -> string; decode(s) -> v (raises "benc: ..." on malformed input).

  nil "n"  true "t"  false "f"  integer "i<d>e"  other number "r<%.17g>;" (also inf, nan)
  string "<len>:<bytes>"  table "d" (key value)* "e"   (any key type; holes and nils kept)
Limits: functions, userdata and threads are refused; cycles are refused; nesting depth at
most settings.max_depth (decode too), so a peer cannot exhaust the C stack.
]]
local M = { _NAME = "splaylab.benc", _VERSION = "0.1", settings = { max_depth = 100 } }

local type, tonumber, error, pcall, floor = type, tonumber, error, pcall, math.floor
-- the builtin next, in a loop named neither next nor pairs (splaylab.safe_pairs says why)
local nxt = (package.loaded["splaylab.safe_pairs"] or {}).next_builtin or next
local sub, find, byte = string.sub, string.find, string.byte
local huge = math.huge

-- One buffer for the process (an encode runs to its end: no thread switch inside), instead of
-- a table of pieces and a concat, which made a string of every piece of a message
-- (docs/simulation.md, "The live rpc call, in instructions"). Given back past KEEP bytes, so
-- one large message does not stay allocated.
local buf = require("string.buffer").new()
local KEEP = 65536
-- "<len>:" of the lengths most strings have, made once (no number formatted per string)
local LEN = {}
for n = 0, 255 do LEN[n] = n .. ":" end

local function enc(v, depth, seen)
  local t = type(v)
  if t == "string" then
    local n = #v
    buf:put(LEN[n] or n .. ":", v)
  elseif t == "number" then
    if v ~= v then buf:put("rnan;")
    elseif v == huge then buf:put("rinf;")
    elseif v == -huge then buf:put("r-inf;")
    elseif floor(v) == v and v > -2 ^ 53 and v < 2 ^ 53 then buf:putf("i%de", v)
    else buf:putf("r%.17g;", v) end
  elseif t == "boolean" then
    buf:put(v and "t" or "f")
  elseif t == "nil" then
    buf:put("n")
  elseif t == "table" then
    if depth > M.settings.max_depth then error("benc: table nested too deeply", 0) end
    if seen[v] then error("benc: cannot encode a table with cycles", 0) end
    seen[v] = true
    buf:put("d")
    for k, x in nxt, v do
      enc(k, depth + 1, seen)
      enc(x, depth + 1, seen)
    end
    buf:put("e")
    seen[v] = nil
  else
    error("benc: cannot encode a " .. t, 0)
  end
end

function M.encode(v)
  local ok, err = pcall(enc, v, 0, {})
  local s = ok and buf:tostring() or nil
  if #buf > KEEP then buf:free() else buf:reset() end   -- empty for the next encode, whatever happened
  if not ok then error(err, 0) end
  return s
end

local SPECIAL = { nan = 0 / 0, inf = huge, ["-inf"] = -huge }

local function dec(s, pos, depth)
  local c = byte(s, pos)   -- a byte, not a one-character string per value
  if c == 110 then return nil, pos + 1 end     -- "n"
  if c == 116 then return true, pos + 1 end    -- "t"
  if c == 102 then return false, pos + 1 end   -- "f"
  -- the short cases most messages are made of, without find, sub and tonumber: a one-digit
  -- integer, a string shorter than ten bytes
  if c == 105 then
    local d = byte(s, pos + 1)
    if d and d >= 48 and d <= 57 and byte(s, pos + 2) == 101 then return d - 48, pos + 3 end
  elseif c and c >= 48 and c <= 57 and byte(s, pos + 1) == 58 then
    local len = c - 48
    if pos + 1 + len > #s then error("benc: truncated string at " .. pos, 0) end
    return sub(s, pos + 2, pos + 1 + len), pos + 2 + len
  end
  if c == 105 or c == 114 then                 -- "i", "r"
    local e = find(s, c == 105 and "e" or ";", pos + 1, true)
    if not e then error("benc: unterminated number at " .. pos, 0) end
    local text = sub(s, pos + 1, e - 1)
    local v = tonumber(text) or SPECIAL[text]
    if not v then error("benc: bad number at " .. pos, 0) end
    return v, e + 1
  end
  if c == 100 then   -- "d"
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
