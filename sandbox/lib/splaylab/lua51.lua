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

Lua 5.1 (built, as SPLAY's was, with LUA_COMPAT_VARARG) also gave a vararg function that never
names `...` in its body a local `arg`: the table {n = select("#", ...), ...} of its extra
arguments, Lua 5.0's style. SPLAY's pastry.lua wraps rpc.a_call in `function(n, ...)` and passes
`unpack(arg)` on; under LuaJIT `arg` is the global (nil) and every call fails. M.load gives such a
function that local (M.vararg_arg: `local arg = {n = select("#", ...), ...};` written after its
parameter list, on the same line), with a warning naming the line. A function that names `...`
keeps LuaJIT's meaning (Lua 5.1 gave it a nil local `arg`; nothing relies on that).

Usage: local chunk, err, warnings = require("splaylab.lua51").load(src, "app.lua", env)
  local text, err, warnings = lua51.prepare(src, "app.lua")   -- the text M.load compiles
  local fixed, warnings = lua51.rewrite(src, "app.lua")   -- the source LuaJIT would accept
  local fixed, warnings = lua51.vararg_arg(src, "app.lua") -- Lua 5.0's `arg` given
]]
local M = { _NAME = "splaylab.lua51", _VERSION = "0.1" }

local byte, sub, find, format, concat = string.byte, string.sub, string.find, string.format, table.concat
local load, setfenv, ipairs = load, setfenv, ipairs

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

-- Lua's tokens, enough to follow functions and blocks: yields kind, text, start, stop, line
-- with kind "name", "...", "(", ")" or "other"; strings, comments and numbers are skipped.
local function tokens(src)
  local i, n, line = 1, #src, 1
  return function()
    while i <= n do
      local b = byte(src, i)
      if b == NL then
        line = line + 1
        i = i + 1
      elseif b == 45 and byte(src, i + 1) == 45 then                 -- a comment
        local stop = long_bracket_end(src, i + 2)
        if not stop then stop = (find(src, "\n", i + 2, true) or n + 1) - 1 end
        line = line + count_lines(src, i, stop)
        i = stop + 1
      elseif b == 91 and long_bracket_end(src, i) then               -- a long string
        local stop = long_bracket_end(src, i)
        line = line + count_lines(src, i, stop)
        i = stop + 1
      elseif b == 34 or b == 39 then                                  -- a short string
        local j = i + 1
        while j <= n do
          local c = byte(src, j)
          if c == b or c == NL then break end
          if c == BACKSLASH then
            local nxt = byte(src, j + 1)
            if nxt == NL then line = line + 1 end
            j = j + 2
          else
            j = j + 1
          end
        end
        i = j + 1
      else
        local s, e = find(src, "^[%a_][%w_]*", i)
        if s then
          i = e + 1
          return "name", sub(src, s, e), s, e, line
        end
        s, e = find(src, "^%d[%w_%.]*", i)                              -- a number (and its exponent)
        if s then
          i = e + 1
        elseif sub(src, i, i + 2) == "..." then
          i = i + 3
          return "...", "...", i - 3, i - 1, line
        elseif sub(src, i, i + 1) == ".." then
          i = i + 2
        elseif b == 40 or b == 41 then
          i = i + 1
          return b == 40 and "(" or ")", sub(src, i - 1, i - 1), i - 1, i - 1, line
        else
          i = i + 1
          if b > 32 then return "other", sub(src, i - 1, i - 1), i - 1, i - 1, line end
        end
      end
    end
  end
end

local OPENS = { ["function"] = true, ["if"] = true, ["do"] = true, ["repeat"] = true }
local CLOSES = { ["end"] = true, ["until"] = true }

--- src where each vararg function that uses `arg` but never `...` gets Lua 5.1's local `arg`
--- -> fixed source, warnings {"CHUNK:LINE: ..."}; the source as is when none does.
function M.vararg_arg(src, chunkname)
  chunkname = chunkname or "app.lua"
  if not find(src, "...", 1, true) or not find(src, "%f[%w_]arg%f[^%w_]") then return src, {} end
  -- stack of open blocks; a function's entry: {fn = true, vararg, uses_dots, uses_arg, at, line}
  local stack, inserts, warnings = {}, {}, {}
  local next_token = tokens(src)
  local prev_text
  while true do
    local kind, text, _, _, line = next_token()
    if not kind then break end
    if kind == "name" and prev_text ~= "." and prev_text ~= ":" then
      if text == "function" then
        -- its parameter list: up to the ")" after the "(" that follows
        local f = { fn = true, line = line }
        local stop
        repeat kind, text, _, stop = next_token() until not kind or kind == "("
        while kind and kind ~= ")" do
          if kind == "..." then f.vararg = true end
          kind, text, _, stop = next_token()
        end
        f.at = stop
        stack[#stack + 1] = f
      elseif OPENS[text] then
        stack[#stack + 1] = { fn = false }
      elseif CLOSES[text] then
        local top = stack[#stack]
        stack[#stack] = nil
        if top and top.fn and top.vararg and top.uses_arg and not top.uses_dots then
          inserts[#inserts + 1] = top
        end
      elseif text == "arg" then
        -- the innermost vararg function whose local it would be
        for k = #stack, 1, -1 do
          if stack[k].fn and stack[k].vararg then stack[k].uses_arg = true; break end
        end
      end
    elseif kind == "..." then
      for k = #stack, 1, -1 do
        if stack[k].fn then stack[k].uses_dots = true; break end
      end
    end
    prev_text = text
  end
  if #inserts == 0 then return src, {} end
  table.sort(inserts, function(a, b) return a.at < b.at end)
  local parts, from = {}, 1
  for _, f in ipairs(inserts) do
    parts[#parts + 1] = sub(src, from, f.at)
    parts[#parts + 1] = ' local arg = {n = select("#", ...), ...};'
    from = f.at + 1
    warnings[#warnings + 1] = format("%s:%d: vararg function names `arg`, not `...`, in its body: given Lua 5.1's "
      .. "local arg = {n = select('#', ...), ...} (Lua 5.0's style; `...` is today's)", chunkname, f.line)
  end
  parts[#parts + 1] = sub(src, from)
  return concat(parts), warnings
end

--- The syntax error of a precompiled chunk (app source must be text).
function M.bytecode_refused(chunkname)
  return (chunkname or "app.lua") .. ":1: precompiled bytecode is not accepted, send Lua source"
end

--- The text LuaJIT compiles as Lua 5.1 read `src` (unknown escapes rewritten, Lua 5.0's `arg`
--- given) -> text, nil, warnings, chunk (that text compiled, in the global environment) |
--- nil, error, warnings.
function M.prepare(src, chunkname)
  chunkname = chunkname or "app.lua"
  local chunk, err = load(src, "=" .. chunkname, "t")
  local warnings = {}
  if not chunk and find(tostring(err), "invalid escape sequence", 1, true) then
    local fixed
    fixed, warnings = M.rewrite(src, chunkname)
    if fixed == src then return nil, err, {} end
    src = fixed
    chunk, err = load(src, "=" .. chunkname, "t")
  end
  if not chunk then return nil, err, warnings end
  local fixed, more = M.vararg_arg(src, chunkname)
  if fixed == src then return src, nil, warnings, chunk end
  for _, w in ipairs(more) do warnings[#warnings + 1] = w end
  chunk, err = load(fixed, "=" .. chunkname, "t")
  if not chunk then return nil, err, warnings end
  return fixed, nil, warnings, chunk
end

--- Compile app source (text only) as Lua 5.1 read it -> chunk | nil, error, warnings.
function M.load(src, chunkname, env)
  local text, err, warnings, chunk = M.prepare(src, chunkname)
  if not text then return nil, err, warnings end
  if env then setfenv(chunk, env) end
  return chunk, nil, warnings
end

return M
