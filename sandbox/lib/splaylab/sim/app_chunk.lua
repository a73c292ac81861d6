--[[
splaylab.sim.app_chunk - app.lua (and an assignment's harness) compiled once for every node of
a simulation: one set of prototypes, a closure of its own per node.

Compiled per node, a chunk costs each node its prototypes (bytecode, constants, line info: ~1.3
bytes per byte of source, 5 KB for the chord-latency lab's 4 KB) and ~50 us of compiling; at
10,000 nodes of a 30 KB app, 400 MB and 5 s. Here the source is compiled once inside a function
that returns the app's main function, `return function(...) SOURCE\nend`, on the source's first
line so that line numbers stay the file's; each call makes a new closure of that main function,
whose environment is the one the maker had at that moment (a closure takes its creator's), so
every node runs its own closure in its own environment, and every function the app defines is
made by that closure, in that environment. The maker is called only here, never reachable by
student code, and its environment is an empty table between calls.

What differs from a chunk of its own: a traceback names the main function's frame
"in function <app.lua:1>" where a chunk reads "in main chunk". main_frames() puts the live
wording back, in the simulator's error records and in the app's own debug.traceback.

Usage: local app_chunk = require "splaylab.sim.app_chunk"
  local maker, err, warnings = app_chunk.new(src, "app.lua", true)  -- true: as Lua 5.1 read it
  local chunk = maker(env)                                -- the node's own main function
  tb = app_chunk.main_frames(tb, co, chunk, harness)     -- co: the traced thread, or nil
]]
local lua51 = require "splaylab.lua51"

local M = { _NAME = "splaylab.sim.app_chunk", _VERSION = "0.1" }

local load, setfenv, type, tostring, select = load, setfenv, type, tostring, select
local getinfo, find, sub = debug.getinfo, string.find, string.sub

--- A maker of the source's main function -> maker(env) -> a new closure in env; or nil, the
--- syntax error's text, warnings. as_lua51: compiled as splaylab.lua51 reads app source (its
--- warnings are returned, for every node to write); else compiled as it is.
function M.new(src, chunkname, as_lua51)
  local text, err, warnings
  if as_lua51 then
    if sub(src, 1, 1) == "\27" then return nil, lua51.bytecode_refused(chunkname), {} end
    text, err, warnings = lua51.prepare(src, chunkname)
  else
    local compiled
    compiled, err = load(src, "=" .. chunkname, "t")
    text, warnings = compiled and src, {}
  end
  if not text then return nil, tostring(err), warnings end
  local empty = {}
  local outer = load("return function(...) " .. text .. "\nend", "=" .. chunkname, "t", empty)
  if not outer then
    -- the extra level refused (the parser's nesting limit): a chunk per node, as live
    return function(env) return (load(text, "=" .. chunkname, "t", env)) end, nil, warnings
  end
  return function(env)
    setfenv(outer, env)
    local main = outer()
    setfenv(outer, empty)
    return main
  end, nil, warnings
end

-- The frame of `fn` names it as a chunk's: the last "in function <SRC:1>" becomes "in main
-- chunk" (the main function is the deepest frame of its source on the stack: it runs every
-- other function of it; the runtime's frames below it never carry that name).
local function rename(tb, fn)
  local src = getinfo(fn, "S").short_src
  local pattern = "in function <" .. src .. ":1>"
  local at, stop, from = nil, nil, 1
  while true do
    local s, e = find(tb, pattern, from, true)
    if not s then break end
    at, stop, from = s, e, e + 1
  end
  if not at then return tb end
  return sub(tb, 1, at - 1) .. "in main chunk" .. sub(tb, stop + 1)
end

--- A traceback of `co` (nil: the running thread, whose stack is still there) with the frames
--- of the main functions given (made by makers; nil ones skipped) named as live names a
--- chunk's.
function M.main_frames(tb, co, ...)
  if type(tb) ~= "string" then return tb end
  for i = 1, select("#", ...) do
    local fn = select(i, ...)
    if fn then
      local level = 1
      while true do
        local info
        if co then info = getinfo(co, level, "f") else info = getinfo(level, "f") end
        if not info then break end
        if info.func == fn then tb = rename(tb, fn); break end
        level = level + 1
      end
    end
  end
  return tb
end

return M
