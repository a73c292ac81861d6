--[[
syntax_check.lua - compile app source the way the node runtime does, without running it.

  luajit sandbox/syntax_check.lua [CHUNKNAME] < app.lua

Used by the controller's job check (backend/lib/lua_syntax.py) and the grader's
(backend/grading/grader/syntax.py): text only (bytecode refused), compiled as Lua 5.1 read it
(lib/splaylab/lua51.lua, the same function node.lua and the simulator use). stdout: one
warning per line ("CHUNK:LINE: ..."); stderr: the compiler's message. Exit 0 compiles, 2 does not.
]]
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local chunkname = arg[1] or "app.lua"
local src = io.read("*a")
if src:sub(1, 1) == "\27" then
  io.stderr:write(chunkname, ":1: precompiled bytecode is not accepted, send Lua source")
  os.exit(2)
end
local chunk, err, warnings = require("splaylab.lua51").load(src, chunkname, {})
for _, w in ipairs(warnings) do io.stdout:write(w, "\n") end
if not chunk then
  io.stderr:write(tostring(err))
  os.exit(2)
end
