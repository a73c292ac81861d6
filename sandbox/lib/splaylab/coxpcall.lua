--[[
splaylab.coxpcall - "splay.coxpcall": coroutine-safe pcall/xpcall.
LuaJIT 2.1 already yields across pcall/xpcall (and xpcall takes arguments), so these are the
built-ins under SPLAY's names: pcall, xpcall, copcall, coxpcall.
]]
local M = { _NAME = "splaylab.coxpcall", _VERSION = "0.1" }
M.pcall, M.xpcall, M.copcall, M.coxpcall = pcall, xpcall, pcall, xpcall
return M
