--[[
node.lua - the one entry point of a SplayLab node (docs/architecture.md, "Node runtime").

  luajit sandbox/node.lua job.json app.lua      (cwd = the instance's working directory)

Reads job.json, builds the `job` table and the restricted environment (splaylab.env), loads
app.lua as text, runs it, then runs the events loop if the app left threads behind.
SIGTERM is the host's graceful leave: caught from the start (platform.catch_leave), it runs
the app's events.on_leave handlers, then the node exits 0.
stdout carries records `LEVEL<TAB>TEXT` only (splaylab.output). Exit codes: 0 normal end,
1 runtime error (traceback logged), 2 syntax error (first record `error<TAB>app.lua:LINE:
msg`), 3 runtime internal error, 4 out of memory. CPU, wall time and memory limits are
enforced from outside (rlimits, the daemon's clock).
]]
-- Memory per node (hundreds of nodes share a machine): LuaJIT's allocator keeps the pages of
-- its peak heap, so keep the peak low: collect continuously while starting (pause 100), then
-- let the heap grow to 1.1x the live data between cycles (LuaJIT default: 2x; PSS of an idle
-- 200-node Chord instance 1.33 -> 1.16 MB for a little more collector work).
collectgarbage("setpause", 100)
-- The JIT's traces live in the heap and its machine code in its own area, per process: with the
-- default thresholds an idle Chord node compiles the runtime's own loops (~150 KB). Compiling
-- only code that runs 500 times (default 56) keeps idle nodes interpreted; a compute loop of a
-- student's still reaches that in microseconds (idle Chord PSS 1.11 -> 0.94 MB, 60 nodes).
jit.opt.start("hotloop=500", "hotexit=100")
local EXIT_OK, EXIT_RUNTIME, EXIT_SYNTAX, EXIT_INTERNAL, EXIT_MEMORY = 0, 1, 2, 3, 4
local MEMORY_ERROR = "not enough memory"
local GC_PAUSE = 110

-- The sandbox's own modules first; the system paths stay for the runtime (socket, cjson);
-- entries relative to the cwd (the student's directory) are dropped.
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local function without_cwd(path)
  local kept = {}
  for entry in path:gmatch("[^;]+") do
    if not entry:match("^%./") and entry:sub(1, 1) ~= "?" then kept[#kept + 1] = entry end
  end
  return table.concat(kept, ";")
end
package.path = here .. "/lib/?.lua;" .. here .. "/lib/?/init.lua;" .. without_cwd(package.path)
require "splaylab.safe_pairs"   -- before any other module: LuaJIT #827 (the module says why)
package.cpath = without_cwd(package.cpath)

local output = require "splaylab.output"

local function finish(code)
  require("splaylab.trace"):flush()
  io.stdout:flush()
  os.exit(code)
end

local function is_memory_error(err)
  return err == MEMORY_ERROR
end

local function runtime_error(tb)
  output.write("error", require("splaylab.boot").error_text(tb))
  finish(EXIT_RUNTIME)
end

local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then error("cannot open " .. tostring(path) .. ": " .. tostring(err), 0) end
  local data = f:read("*a")
  f:close()
  return data
end

local boot = require "splaylab.boot"
local build_limits, build_job, runtime_modules = boot.build_limits, boot.build_job, boot.runtime_modules

local function main(job_path, app_path)
  local cjson = require "cjson"
  local events = require "splaylab.events"

  local spec = cjson.decode(read_file(job_path))
  -- live, a trace row waits at most a second before it is written (docs/trace.md)
  if type(spec.trace) == "table" then spec.trace.flush_after = spec.trace.flush_after or 1
  elseif spec.trace == true then spec.trace = { flush_after = 1 } end
  local limits = build_limits(spec.limits)
  local job = build_job(spec, limits)
  local modules, loaders, fs = runtime_modules(spec, job, limits)
  -- an assignment's harness (job.json `harness`: a file name) gets an environment of its own,
  -- built before the submission's (docs/grading.md, "What the grader trusts")
  local harness_src = type(spec.harness) == "string" and read_file(spec.harness) or nil
  local henv, harness_stream
  if harness_src then henv, harness_stream = boot.app_env(build_job(spec, limits), modules, loaders, fs) end
  local env, stdout_stream = boot.app_env(job, modules, loaders, fs)
  local function flush_streams()
    stdout_stream.flush()
    if harness_stream then harness_stream.flush() end
  end
  local gate = spec.gate
  spec = nil   -- luacheck: ignore 311 (not needed any more: job, the socket policy and fs keep what is needed)

  local handler = boot.error_handler
  events.on_error = function(co, err)
    flush_streams()
    if is_memory_error(err) then
      output.write("error", "app.lua: not enough memory")
      finish(EXIT_MEMORY)
    end
    runtime_error(debug.traceback(co, tostring(err)))
  end
  events.on_exit = function()
    flush_streams()
    finish(EXIT_OK)
  end

  -- Memory per node: collect the garbage of start-up (job.json, the environment) before the
  -- app runs, and once more when the app has set itself up and the loop first waits.
  events.on_idle = function() collectgarbage("collect") end

  -- A churn join started ahead of its instant waits here, runtime loaded, until the daemon
  -- writes one byte to its gate (a FIFO) at the planned instant; end of file: never joined.
  if gate then
    local fifo = assert(io.open(gate, "rb"))
    local go = fifo:read(1)
    fifo:close()
    os.remove(gate)
    if not go then return EXIT_OK end
  end

  local run_harness
  if harness_src then
    local err
    run_harness, err = boot.compile_harness(harness_src, henv, env, require("splaylab.sim.world").new_math)
    if not run_harness then
      output.write("error", err)
      return EXIT_INTERNAL
    end
    harness_src = nil   -- luacheck: ignore 311
  end

  local src = read_file(app_path)
  local chunk, syntax_err = boot.compile_app(src, env)
  if not chunk then
    output.write("error", syntax_err)
    return EXIT_SYNTAX
  end

  src = nil   -- luacheck: ignore 311
  collectgarbage("collect")
  collectgarbage("setpause", GC_PAUSE)
  local ok, err = true, nil
  if run_harness then ok, err = xpcall(run_harness, handler) end
  if ok then ok, err = xpcall(chunk, handler) end
  if ok and events.pending() > 0 then
    ok, err = xpcall(events.run, handler)
  end
  flush_streams()
  if not ok then
    if is_memory_error(err) then
      output.write("error", "app.lua: not enough memory")
      return EXIT_MEMORY
    end
    runtime_error(err)
  end
  return EXIT_OK
end

local ok, code = xpcall(main, function(err)
  if err == MEMORY_ERROR then return err end
  return debug.traceback(tostring(err), 1)
end, arg[1] or "job.json", arg[2] or "app.lua")
if not ok then
  if is_memory_error(code) then
    output.write("error", "app.lua: not enough memory")
    finish(EXIT_MEMORY)
  end
  output.write("error", "splaylab runtime internal error: " .. tostring(code))
  finish(EXIT_INTERNAL)
end
finish(code)
