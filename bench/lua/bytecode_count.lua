--[[
Counts the bytecodes sim.lua executes, by source file and by function, with the JIT off:
a figure that does not move with the machine's load (CPU seconds on the shared 2-core VM vary by
up to 40 % between runs). Loaded by bench/sim_bytecodes.py before sim.lua (`luajit -joff -l`).
A count hook fires every N bytecodes (LuaJIT's hooks see every coroutine) and charges the
running function. Env: BYTECODE_EVERY (N, default 100), BYTECODE_OUT (report file).
]]
package.loaded["jit.p"] = true   -- sim.lua then starts no spin-check profiler (its own SIGPROF)
local every = tonumber(os.getenv("BYTECODE_EVERY")) or 100
local out_path = assert(os.getenv("BYTECODE_OUT"), "BYTECODE_OUT: the report's path")
local counts, getinfo = {}, debug.getinfo

debug.sethook(function()
  local i = getinfo(2, "S")
  local key = i and (i.short_src:match("[^/]*$") .. ":" .. (i.linedefined or 0)) or "?"
  counts[key] = (counts[key] or 0) + 1
end, "", every)

-- sim.lua ends with os.exit: the report is written there (as -jp's docs/simulation.md trick)
local exit = os.exit
os.exit = function(code)   -- luacheck: ignore 122
  debug.sethook()
  local f = assert(io.open(out_path, "w"))
  for key, n in pairs(counts) do f:write(n * every, "\t", key, "\n") end
  f:close()
  exit(code)
end
