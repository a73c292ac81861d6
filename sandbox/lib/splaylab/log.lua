--[[
splaylab.log - the `log` table given to student code (SPLAY's log API, minimal).

Levels: 1 debug, 2 notice/info, 3 warning, 4 error, 5 print. A message is written when its
level is >= the logger's level (module functions use M.global_level, default 1 = all).
Each message becomes records of the matching stdout level (debug, info, warning, error,
print); arguments are joined with " " after tostring, as SPLAY does.

Usage: log.info("x", 1); local l = log.new(3, "[chord]"); l:warn("late"); log.write(msg, 4)
Limits: no per-module settings file, no remote log socket (SPLAY had one; stdout replaces it).
]]
local output = require "splaylab.output"

local M = { _NAME = "splaylab.log", _VERSION = "0.1", global_level = 1 }

local select, tostring, tonumber, concat, rawset, setmetatable =
  select, tostring, tonumber, table.concat, rawset, setmetatable

-- method name -> {numeric level, record level}
local METHODS = {
  debug = { 1, "debug" },
  notice = { 2, "info" },
  info = { 2, "info" },
  warning = { 3, "warning" },
  warn = { 3, "warning" },
  error = { 4, "error" },
  print = { 5, "print" },
}
local RECORD_OF_LEVEL = { "debug", "info", "warning", "error", "print" }

local function join(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  return concat(parts, " ")
end

local function emit(prefix, record_level, ...)
  local text = join(...)
  if prefix and prefix ~= "" then text = prefix .. " " .. text end
  output.write(record_level, text)
end

-- log.info(...) and log:info(...) alike (SPLAY's apps use both: chord_p.lua's log:print)
for name, spec in pairs(METHODS) do
  M[name] = function(...)
    if spec[1] >= M.global_level then
      if (...) == M then emit(nil, spec[2], select(2, ...)) else emit(nil, spec[2], ...) end
    end
  end
end

-- log.write(msg, level): cyclon.lua style, level defaults to 5 (print).
function M.write(msg, level, ...)
  if msg == M then msg, level = level, ... end
  level = tonumber(level) or 5
  if level < 1 then level = 1 elseif level > 5 then level = 5 end
  if level >= M.global_level then emit(nil, RECORD_OF_LEVEL[level], msg) end
end

function M.set_level(level) M.global_level = tonumber(level) or M.global_level end

-- log.new(level, prefix) -> logger object; methods work with ':' and with '.', so each is a
-- closure over its logger: made on the first use of its name (and kept in the logger), since
-- most loggers are never used (the runtime's own: three per node, ~3 KB of closures each in a
-- simulation of thousands of nodes).
local function method(obj, name)
  if name == "write" then
    return function(first, ...)
      local msg, lvl
      if first == obj then msg, lvl = ... else msg, lvl = first, ... end
      lvl = tonumber(lvl) or 5
      if lvl < 1 then lvl = 1 elseif lvl > 5 then lvl = 5 end
      if lvl >= obj.level then emit(obj.prefix, RECORD_OF_LEVEL[lvl], msg) end
    end
  end
  local spec = METHODS[name]
  if not spec then return nil end
  return function(first, ...)
    if first == obj then
      if spec[1] >= obj.level then emit(obj.prefix, spec[2], ...) end
    elseif spec[1] >= obj.level then
      emit(obj.prefix, spec[2], first, ...)
    end
  end
end

local Logger = {
  __index = function(obj, name)
    local f = method(obj, name)
    if f then rawset(obj, name, f) end
    return f
  end,
}

function M.new(level, prefix)
  return setmetatable({ level = tonumber(level) or 1, prefix = prefix and tostring(prefix) or nil }, Logger)
end

return M
