--[[
splaylab.misc - the `misc` table given to student code (minimal for now).

Only misc.time() (wall clock, seconds as a float, from LuaSocket's gettime). The rest of
SPLAY's misc (between_c, random_pick, shuffle, dup, split, size, empty, merge) comes with
the full SPLAY API.
]]
local socket = require "socket"

local M = { _NAME = "splaylab.misc", _VERSION = "0.1" }

function M.time() return socket.gettime() end

return M
