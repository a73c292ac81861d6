--[[
Counts the bytes sim.lua allocates, by source line, with the JIT off: like bytecode_count.lua, a
figure that does not move with the machine's load. Loaded by bench/sim_bytecodes.py --alloc
before sim.lua (`luajit -joff -l`). A count hook fires every N bytecodes (LuaJIT's hooks see
every coroutine), reads collectgarbage("count") and charges what it grew by since the last
hook to the line running now: an allocation is charged to a line at most N bytecodes after it
(a call's allocations may show on the callee's first line or the caller's next one). A
collection in between (the count drops) charges nothing. Env: ALLOC_EVERY (N, default 3),
ALLOC_OUT (report file: bytes<TAB>file:line per line).
]]
package.loaded["jit.p"] = true   -- sim.lua then starts no spin-check profiler (its own SIGPROF)
local every = tonumber(os.getenv("ALLOC_EVERY")) or 3
local out_path = assert(os.getenv("ALLOC_OUT"), "ALLOC_OUT: the report's path")
local bytes, getinfo, count = {}, debug.getinfo, collectgarbage
local last = count("count")

debug.sethook(function()
  local now = count("count")
  if now > last then
    local i = getinfo(2, "Sl")
    local key = i and (i.short_src:match("[^/]*$") .. ":" .. (i.currentline or 0)) or "?"
    bytes[key] = (bytes[key] or 0) + (now - last) * 1024
    now = count("count")   -- (the table above may have grown: not the app's)
  end
  last = now
end, "", every)

-- sim.lua ends with os.exit: the report is written there (as -jp's docs/simulation.md trick)
local exit = os.exit
os.exit = function(code)   -- luacheck: ignore 122
  debug.sethook()
  local f = assert(io.open(out_path, "w"))
  for key, n in pairs(bytes) do f:write(string.format("%.0f", n), "\t", key, "\n") end
  f:close()
  exit(code)
end
