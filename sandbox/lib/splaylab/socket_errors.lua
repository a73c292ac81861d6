--[[
splaylab.socket_errors - LuaSocket's error helpers in plain Lua, for splaylab.socket's student
table: socket.newtry(finalizer) (a function that returns its arguments when the first is true,
else calls finalizer and raises {socket_error = message}) and socket.protect(f) (f with such
raises turned back into nil, message; other errors raised again).
]]
local M = { _NAME = "splaylab.socket_errors", _VERSION = "0.1" }

local type, pcall, select, error = type, pcall, select, error
local unpack = unpack or table.unpack   -- luacheck: ignore 143

function M.newtry(finalizer)
  return function(...)
    local ok = ...
    if ok then return ... end
    if finalizer then pcall(finalizer) end
    error({ socket_error = (select(2, ...)) }, 0)
  end
end

function M.protect(f)
  return function(...)
    local res = { pcall(f, ...) }
    if res[1] then return unpack(res, 2) end
    local e = res[2]
    if type(e) == "table" and e.socket_error then return nil, e.socket_error end
    error(e, 0)
  end
end

return M
