--[[
splaylab.lua51 - app source as Lua 5.1 (SPLAY's language) read it, where LuaJIT is stricter.

Lua 5.1 read an unknown escape in a string ("\d", "\.", "\[") as the character itself; LuaJIT's
lexer refuses it ("invalid escape sequence"), so SPLAY applications such as bt.lua do not even
compile. Every place that loads app source (node.lua and the simulator through
boot.compile_app, the controller's and the grader's syntax checks through ../../syntax_check.lua)
calls M.load: the source is compiled as is; only when LuaJIT refuses an escape is it rewritten,
each escape LuaJIT refuses losing its backslash (what Lua 5.1 did), and compiled again. Each
rewritten line gives a warning "CHUNK:LINE: ...".
Escapes LuaJIT accepts keep LuaJIT's meaning, even where Lua 5.1 differed ("\x41" is "A" here,
"x41" in Lua 5.1; "\z", "\u{...}"): only source that LuaJIT refuses is changed.
The scan knows Lua's lexical structure: short strings, long strings and long/short comments
(an escape-like sequence in a comment or a long string is never touched).

Usage: local chunk, err, warnings = require("splaylab.lua51").load(src, "app.lua", env)
  local fixed, warnings = lua51.rewrite(src, "app.lua")   -- the source LuaJIT would accept
]]
local M = { _NAME = "splaylab.lua51", _VERSION = "0.1" }

local byte, sub, find, format, concat = string.byte, string.sub, string.find, string.format, table.concat
local load = load

local BACKSLASH, NL, CR = 92, 10, 13
-- escapes LuaJIT 2.1's lexer accepts after a backslash (digits, x, u and z are checked apart)
local SIMPLE = {}
for c in ("abfnrtv\\\"'\n\r"):gmatch(".") do SIMPLE[byte(c)] = true end

local function is_digit(b) return b and b >= 48 and b <= 57 end
local function is_hex(b)
  return b and (is_digit(b) or (b >= 65 and b <= 70) or (b >= 97 and b <= 102))
end

-- Does LuaJIT accept the escape whose backslash is at i?
local function accepted(src, i)
  local b = byte(src, i + 1)
  if b == nil then return true end   -- unfinished string: LuaJIT's own error
  if SIMPLE[b] or is_digit(b) or b == 122 then return true end   -- 122: z
  if b == 120 then return is_hex(byte(src, i + 2)) and is_hex(byte(src, i + 3)) end   -- \xXX
  if b == 117 then                                                  -- \u{XXX}
    if byte(src, i + 2) ~= 123 then return false end
    local close = find(src, "}", i + 3, true)
    return close ~= nil and close > i + 3 and not find(sub(src, i + 3, close - 1), "[^%x]")
  end
  return false
end

-- The end of the long bracket opened at i ("[==[" ...), or nil when i opens none.
local function long_bracket_end(src, i)
  local level = src:match("^%[(=*)%[", i)
  if not level then return nil end
  local _, stop = find(src, "]" .. level .. "]", i + #level + 2, true)
  return stop or #src
end

local function count_lines(src, from, to)
  local n = 0
  for _ in sub(src, from, to):gmatch("\n") do n = n + 1 end
  return n
end

--- src rewritten so that LuaJIT accepts its escapes as Lua 5.1 read them -> fixed source,
--- warnings {"CHUNK:LINE: ..."} (one per line changed); the source as is when nothing changed.
function M.rewrite(src, chunkname)
  chunkname = chunkname or "app.lua"
  local parts, warnings = {}, {}
  local i, from, n, line = 1, 1, #src, 1
  local changed_on, lines = {}, {}   -- line -> the escapes removed there; those lines in order
  while i <= n do
    local b = byte(src, i)
    if b == NL then
      line = line + 1
      i = i + 1
    elseif b == 45 and byte(src, i + 1) == 45 then                 -- "--": a comment
      local stop = long_bracket_end(src, i + 2)
      if not stop then stop = (find(src, "\n", i + 2, true) or n + 1) - 1 end
      line = line + count_lines(src, i, stop)
      i = stop + 1
    elseif b == 91 and long_bracket_end(src, i) then               -- "[[" / "[=[": a long string
      local stop = long_bracket_end(src, i)
      line = line + count_lines(src, i, stop)
      i = stop + 1
    elseif b == 34 or b == 39 then                                  -- a short string
      local quote = b
      i = i + 1
      while i <= n do
        local c = byte(src, i)
        if c == quote or c == NL then break end                    -- an unfinished string: LuaJIT says so
        if c == BACKSLASH then
          if not accepted(src, i) then
            parts[#parts + 1] = sub(src, from, i - 1)
            from = i + 1                                            -- drop the backslash
            local list = changed_on[line]
            if not list then list = {}; changed_on[line] = list; lines[#lines + 1] = line end
            list[#list + 1] = "\\" .. sub(src, i + 1, i + 1)
          end
          local nxt = byte(src, i + 1)
          if nxt == NL or nxt == CR then line = line + 1 end
          i = i + 2
        else
          i = i + 1
        end
      end
      i = i + 1
    else
      i = i + 1
    end
  end
  if #lines == 0 then return src, warnings end
  parts[#parts + 1] = sub(src, from)
  for _, l in ipairs(lines) do
    local escapes, plain = changed_on[l], {}
    for k, e in ipairs(escapes) do plain[k] = '"' .. sub(e, 2) .. '"' end
    warnings[#warnings + 1] = format("%s:%d: escape %s read as Lua 5.1 read it (the character itself); "
      .. "LuaJIT refuses unknown escapes: write %s", chunkname, l, concat(escapes, " "), concat(plain, " "))
  end
  return concat(parts), warnings
end

--- Compile app source (text only) as Lua 5.1 read it -> chunk | nil, error, warnings.
function M.load(src, chunkname, env)
  chunkname = chunkname or "app.lua"
  local chunk, err = load(src, "=" .. chunkname, "t", env)
  if chunk or not find(tostring(err), "invalid escape sequence", 1, true) then
    return chunk, err, {}
  end
  local fixed, warnings = M.rewrite(src, chunkname)
  if fixed == src then return nil, err, {} end
  chunk, err = load(fixed, "=" .. chunkname, "t", env)
  return chunk, err, warnings
end

return M
