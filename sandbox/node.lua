--[[
node.lua - the one entry point of a SplayLab node (docs/architecture.md, "Node runtime").

  luajit sandbox/node.lua job.json app.lua      (cwd = the instance's working directory)

Reads job.json, builds the `job` table and the restricted environment (splaylab.env), loads
app.lua as text, runs it, then runs the events loop if the app left threads behind.
stdout carries records `LEVEL<TAB>TEXT` only (splaylab.output). Exit codes: 0 normal end,
1 runtime error (traceback logged), 2 syntax error (first record `error<TAB>app.lua:LINE:
msg`), 3 runtime internal error, 4 out of memory. CPU, wall time and memory limits are
enforced from outside (rlimits, the daemon's clock).
]]
local EXIT_OK, EXIT_RUNTIME, EXIT_SYNTAX, EXIT_INTERNAL, EXIT_MEMORY = 0, 1, 2, 3, 4
local MEMORY_ERROR = "not enough memory"

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
package.cpath = without_cwd(package.cpath)

local output = require "splaylab.output"

local function finish(code)
  io.stdout:flush()
  os.exit(code)
end

local function is_memory_error(err)
  return err == MEMORY_ERROR
end

-- Keep the student's frames; drop the runtime's own (node.lua, splaylab/*, [C] glue).
local function clean_traceback(tb)
  local kept = {}
  for line in (tb .. "\n"):gmatch("(.-)\n") do
    local internal = line:find("node.lua:", 1, true) or line:find("splaylab/", 1, true)
      or line:find("[C]: in function 'xpcall'", 1, true)
      or line:find("[C]: in function 'resume'", 1, true) or line:find("[C]: in ?", 1, true)
      or line:find("^%s*%[C%]: at 0x")
    if not internal then kept[#kept + 1] = line end
  end
  return table.concat(kept, "\n")
end

local function runtime_error(tb)
  output.write("error", clean_traceback(tb))
  finish(EXIT_RUNTIME)
end

local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then error("cannot open " .. tostring(path) .. ": " .. tostring(err), 0) end
  local data = f:read("*a")
  f:close()
  return data
end

local function build_job(spec)
  local function node(n)
    return { ip = tostring(n.ip), port = tonumber(n.port) }
  end
  local job = { nodes = {} }
  for i, n in ipairs(spec.nodes or {}) do job.nodes[i] = node(n) end
  job.me = node(spec.me or {})
  job.position = tonumber(spec.position)
  job.id = tonumber(spec.job_id)
  job.duration = tonumber(spec.duration)
  return job
end

local function main(job_path, app_path)
  local cjson = require "cjson"
  local events = require "splaylab.events"
  local log = require "splaylab.log"
  local misc = require "splaylab.misc"
  local env_lib = require "splaylab.env"

  local job = build_job(cjson.decode(read_file(job_path)))
  local stdout_stream = output.stream("print")
  local function flush_streams() stdout_stream.flush() end

  local function print_(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    output.write("print", table.concat(parts, "\t"))
  end

  local env = env_lib.build {
    job = job, events = events, log = log, misc = misc,
    print = print_, io_write = stdout_stream.write,
  }

  local function handler(err)
    if is_memory_error(err) then return MEMORY_ERROR end
    return debug.traceback(tostring(err), 1)
  end
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

  local src = read_file(app_path)
  if src:sub(1, 1) == "\27" then
    output.write("error", "app.lua:1: precompiled bytecode is not accepted, send Lua source")
    return EXIT_SYNTAX
  end
  local chunk, syntax_err = load(src, "=app.lua", "t", env)
  if not chunk then
    output.write("error", tostring(syntax_err))
    return EXIT_SYNTAX
  end

  local ok, err = xpcall(chunk, handler)
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
