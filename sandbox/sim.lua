--[[
sim.lua - the simulator's entry point: every node of a job in this one LuaJIT process, on a
virtual clock (docs/simulation.md).

  luajit sandbox/sim.lua sim.json       (sandbox/simulate.py writes sim.json and runs this)

sim.json: {app, workdir, time, seed, nodes: [{ip, port}...], list_type, bootstrap: [positions per
node] | null (job.nodes: null, every node), net: [block per node] | null,
churn: [[t, position, "join"|"leave", graceful]...] | null (null: every node joins at 0),
stop_reason, limits, spin_limit (CPU seconds one node may compute without waiting), grace,
output (the output limits, daemon/splayd/output_limits.py sim_block), transport ("fast", the
default: splay.rpc / splay.urpc calls take splaylab.rpc_fast; "sockets": every message is
encoded and crosses the simulated sockets, as live), gc_budget_mb (the garbage, in MB, the
collector lets pile up between cycles: splaylab.sim.collector; 128 when absent)}.

Each node gets its own instance of the runtime (splaylab.sim.world), a platform on virtual
time (splaylab.sim.kernel), its own directory workdir/node-K[.session], its own `os` whose
time, clock and date read the virtual clock (epoch 2026-01-01T00:00:00Z), and runs app.lua
exactly as node.lua does. Student code runs interpreted (jit.off; the runtime's own code keeps
the JIT); the spin check is a watchdog outside this process (sandbox/sim_watch.py) that sends
SIGPROF when one resume lasts too long, answered here by a jit.profile callback, and a node that
runs a million times within one second of virtual time stops the run (splaylab.sim.watch).

stdout: one record per line, `POSITION<TAB>VIRTUAL_T<TAB>LEVEL<TAB>TEXT`, LEVEL being a node
output level or `exit` (TEXT = code<TAB>reason), `churn` (event<TAB>planned[<TAB>graceful]),
`limit` (rate|budget<TAB>lines dropped<TAB>the record's words: splaylab.sim.output_limits) or
`fatal` (the run stopped: TEXT says why). Progress: sim.json's `progress` names a file of 80 bytes
(ten doubles) that this process maps and, every 1024 events, fills cells 0-3: virtual time,
events, nodes started, events again (written last: a reader that sees both equal read one tick);
at each resume cells 4-6: the node (0 between resumes), a resume counter, the virtual time;
cells 7-9 are the watchdog's (the resume to stop, its node, its virtual time). The runner reads
it on its own clock (sandbox/simulate.py, sandbox/sim_watch.py). stderr at the end: `done VT
EVENTS NODES PEAK_RSS_KB` (the runner times the run).
Exit status: 0 every node ended well or ran to the end, 1 a node failed, 2 bad input, 4 out of
memory, 5 a node computed too long without waiting, or ran a million times within
one virtual second.
Determinism: this process reads no clock during the run, and nothing it does depends on the
wall clock: the same input takes the same path through the Lua code and the JIT builds the
same traces (docs/simulation.md "Determinism"). When progress is written is counted in events;
the spin check's signal comes only to end the run.
]]
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. here .. "/lib/?/init.lua;" .. package.path
require "splaylab.safe_pairs"   -- before any other module: LuaJIT #827 (the module says why)

local cjson = require "cjson"
local ffi = require "ffi"
local lfs = require "lfs"
local world = require "splaylab.sim.world"
local kernel_lib = require "splaylab.sim.kernel"
local output_limits = require "splaylab.sim.output_limits"
local watch = require "splaylab.sim.watch"
local app_chunk = require "splaylab.sim.app_chunk"
-- Runtime modules without state, loaded once for every node: the JIT's traces through them then
-- serve every node, instead of one set of side traces per node's copy (apps never see them).
-- (Also memory: each instance is closures and upvalues, ~1 - 3 KB per module and node; the
-- sandbox's rules, env_rules, a table of ~60 reasons, 1.9 KB.)
local SHARED = {}
-- splaylab.memo: answers of pure functions (pool keys, the trace's peers), one cache for all.
for _, name in ipairs { "splaylab.benc_copy", "splaylab.heap", "splaylab.lua51", "splaylab.socket_errors",
                         "splaylab.env_rules", "splaylab.memo" } do
  SHARED[name] = require(name)
end

local format, floor = string.format, math.floor
local EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_MEMORY = 0, 1, 2, 4
local MEMORY_ERROR = "not enough memory"
local VIRTUAL_EPOCH = 1767225600   -- os.time() at virtual t = 0: 2026-01-01T00:00:00Z

ffi.cdef [[
  int dprintf(int fd, const char *format, ...);
]]

-- The collector's pause follows what the last cycle kept: a budget of garbage (sim.json's
-- gc_budget_mb, 128 MB by default) within a floor and a ceiling (splaylab.sim.collector says
-- which, and why: small runs collect rarely, large ones before their garbage grows past a
-- fifth of what they keep).
-- Each step of the incremental collector does 4x the work of the allocation that triggered it
-- (LuaJIT's default: 2x): a cycle ends sooner, so less garbage piles up while it runs (300-node
-- Chord: peak memory -10 %, CPU +4 %, inside the noise; docs/simulation.md "Figures").
local collector = require "splaylab.sim.collector"
collectgarbage("setstepmul", 400)

-- Every node runs its own closures of the runtime's functions, so the JIT makes side traces per
-- node: with LuaJIT's defaults (1000 traces, 512 KB of machine code) a few hundred nodes fill the
-- trace cache, it is flushed and everything is compiled again, over and over (a 300-node Chord
-- on the rpc fast path: 74 flushes in 150 virtual s, 32 % of the time in the JIT compiler).
-- Room for 10,000 traces: no flush there, 35 % less CPU on the fast path (docs/simulation.md).
-- A side trace starts after 200 exits from its parent instead of 10: many exits of long traces
-- (through rpc's dispatch into benc_copy, or into the kernel's queue) can never get one (their
-- snapshot holds more than 250 slots: "register coalescing too complex"), and LuaJIT tries
-- again at every exit from the 10th to the 255th. A grading run (64 nodes, 240 virtual s):
-- 5,613 failed traces -> 482, CPU -15 %; a 1,000-node run: no change inside the noise.
jit.opt.start("maxtrace=10000", "maxmcode=65536", "hotexit=200")

local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then
    io.stderr:write("sim.lua: cannot open ", tostring(path), ": ", tostring(err), "\n")
    os.exit(EXIT_USAGE)
  end
  local data = f:read("*a")
  f:close()
  return data
end

local spec = cjson.decode(read_file(arg[1] or "sim.json"))
for key, v in pairs(spec) do if v == cjson.null then spec[key] = nil end end
world.init(here .. "/lib")
-- (the module's floor and ceiling; near the run's address space limit, more frequent cycles)
collector.start { budget_mb = tonumber(spec.gc_budget_mb), limit_mb = collector.address_space_mb() }
local transport = spec.transport or "fast"
if transport ~= "fast" and transport ~= "sockets" then
  io.stderr:write("sim.lua: transport must be \"fast\" or \"sockets\", not ", tostring(transport), "\n")
  os.exit(EXIT_USAGE)
end
local src = read_file(spec.app)
-- an assignment's harness (docs/grading.md): loaded in every node before app.lua
local harness_src = spec.harness and read_file(spec.harness) or nil
-- Both compiled once for every node: each node gets its own closure of their main functions
-- (splaylab.sim.app_chunk: one set of prototypes, not one per node).
local make_app, app_error, app_warnings = app_chunk.new(src, "app.lua", true)
local make_harness, harness_error
if harness_src then make_harness, harness_error = app_chunk.new(harness_src, "harness.lua", false) end
-- the message trace is always on in simulation (docs/trace.md); `trace: false` turns it off
-- for benchmarks only
local trace_spec = nil
if spec.trace ~= false then trace_spec = type(spec.trace) == "table" and spec.trace or {} end

-- records out --------------------------------------------------------------------------------
-- Written through stdio's buffer as they come (the record's text is not copied into a line of
-- its own, nor 256 lines into one string: a tenth of what a Chord simulation allocated), and
-- flushed every 256 records, so that the runner reads them while the run goes on.
local stdout, nout = io.stdout, 0
stdout:setvbuf("full", 1024 * 1024)
local function flush_out()
  if nout > 0 then
    stdout:flush()
    nout = 0
  end
end
local function emit(k, t, level, text)
  nout = nout + 1
  stdout:write(format("%d\t%.3f\t", k, t), level, "\t", text, "\n")
  if nout >= 256 then flush_out() end
end

local kernel
local out_limits   -- the job's output limits (splaylab.sim.output_limits), made with the kernel

-- The whole run stops: one record saying why, then exit.
local function fatal(k, text, code, t)
  emit(k, t or kernel.now, "fatal", (text:gsub("\n", " ")))
  flush_out()
  os.exit(code)
end

-- the nodes ----------------------------------------------------------------------------------
local seed = tonumber(spec.seed) or 1
local sessions = {}

local function virtual_os()
  local v = {}
  for name, f in pairs(os) do v[name] = f end
  function v.time(t)
    if t ~= nil then return os.time(t) end
    return floor(VIRTUAL_EPOCH + kernel.now)
  end
  function v.clock() return kernel.now end
  function v.date(fmt, t) return os.date(fmt, t or floor(VIRTUAL_EPOCH + kernel.now)) end
  return v
end

-- Loaded chunks of student code run interpreted too. Compiled, each node's copy of app.lua
-- gets traces of its own (its own prototypes): 300 nodes doubled the traces and cost CPU and
-- memory (docs/simulation.md "Figures": the spin check).
local function interpreted(loader)
  return function(...)
    local f, err = loader(...)
    if f then jit.off(f, true) end
    return f, err
  end
end

local function node_dir(k)
  sessions[k] = (sessions[k] or 0) + 1
  local dir = spec.workdir .. "/node-" .. k .. (sessions[k] > 1 and ("." .. sessions[k]) or "")
  assert(lfs.mkdir(dir))
  return dir
end

-- Methods on strings ("x"):upper() index the running node's own string table, as in a
-- one-node process; between nodes, the real one. (env.build points the metatable at the
-- node's table, as node.lua wants: start_node puts this function back.)
local string_of_node = string
local function string_index(_, key) return string_of_node[key] end
getmetatable("").__index = string_index

-- Every node's job.nodes: the positions simulate.py chose for it as a daemon would
-- (splayd.jobs.bootstrap_nodes: the descriptor's list_type/list_size), or every node.
local list_type = spec.list_type or "head"
local function bootstrap_nodes(k)
  local positions = spec.bootstrap and spec.bootstrap[k]
  if not positions then return spec.nodes end
  local list = {}
  for i, position in ipairs(positions) do list[i] = spec.nodes[position] end
  return list
end

-- One index of the job's addresses ("ip:port" -> position, every port of every node) for the
-- socket layer's checks and the network model, shared by the nodes: runtime state that student
-- code cannot reach, read only; a copy per node would cost memory in N^2.
local addresses = {}
do
  local nb_ports = tonumber(type(spec.limits) == "table" and spec.limits.network_nb_ports) or 1
  for k, n in ipairs(spec.nodes) do
    for p = 0, nb_ports - 1 do addresses[n.ip .. ":" .. (tonumber(n.port) + p)] = k end
  end
end

local function start_node(node)
  local k = node.k
  local w = world.new(SHARED, seed, { os = virtual_os() })
  local platform = w.require("splaylab.platform")
  if transport == "fast" then
    node.platform.sim_net, node.platform.sim_owner = kernel.net, node
    node.world = w   -- splaylab.rpc_fast (one for every node) finds the node's modules there
  end
  platform.install(node.platform)
  local output = w.require("splaylab.output")
  output.settings.out = {
    write = function(_, level, _, line)
      local text = out_limits:admit(k, kernel.now, level, line)
      if text then emit(k, kernel.now, level, text) end
    end,
    flush = function() end,
  }
  local boot = w.require("splaylab.boot")
  local events = w.require("splaylab.events")
  local node_spec = { me = spec.nodes[k], nodes = bootstrap_nodes(k), addresses = addresses, position = k,
    job_id = spec.job_id or 0, duration = spec.time, list_type = list_type, seed = seed, limits = spec.limits,
    net = spec.net and spec.net[k] or nil, net_epoch = 0, fs_root = node_dir(k), trace = trace_spec }
  local limits = boot.build_limits(node_spec.limits)
  local job = boot.build_job(node_spec, limits)
  local modules, loaders, fs = boot.runtime_modules(node_spec, job, limits)
  local trace = w.require("splaylab.trace")
  node.on_end = function()
    trace:flush()
    out_limits:close(k, kernel.now)   -- the rate's pending record comes before the exit record
  end
  local henv, harness_stream
  if harness_src then henv, harness_stream = boot.app_env(boot.build_job(node_spec, limits), modules, loaders, fs) end
  local env, stdout_stream = boot.app_env(job, modules, loaders, fs)
  node.string = env.string
  env.load, env.loadstring, env.loadfile = interpreted(env.load), interpreted(env.loadstring), interpreted(env.loadfile)
  local chunk, harness_main   -- this node's closures of app.lua's and the harness's main functions
  -- tracebacks name their frames as live names a chunk's ("in main chunk")
  local function tracebacks(tb, co) return app_chunk.main_frames(tb, co, chunk, harness_main) end
  local real_traceback = debug.traceback
  if type(env.debug) == "table" then
    env.debug.traceback = function(a, b, c)
      if type(a) == "thread" then return tracebacks(real_traceback(a, b, c), a) end
      if b ~= nil and type(b) ~= "number" then return real_traceback(a, b) end
      return tracebacks(real_traceback(a, (b or 1) + 1))   -- + 1: this function's own frame
    end
  end
  string_of_node = env.string
  getmetatable("").__index = string_index

  local function flush_streams()
    stdout_stream.flush()
    if harness_stream then harness_stream.flush() end
  end
  local function failed(text, code)
    flush_streams()
    output.write("error", text)
    platform.exit(code)
  end
  local function handler(err)
    local text = boot.error_handler(err)
    if text == MEMORY_ERROR then return text end   -- no stack walk without memory
    return tracebacks(text)
  end
  events.on_error = function(co, err)
    if err == MEMORY_ERROR then return fatal(k, "out of memory", EXIT_MEMORY) end
    failed(boot.error_text(tracebacks(debug.traceback(co, tostring(err)), co)), 1)
  end
  events.on_exit = function()
    flush_streams()
    platform.exit(0)
  end

  local run_harness
  if harness_src then
    if not make_harness then return fatal(k, harness_error, EXIT_USAGE) end
    harness_main = make_harness(henv)
    run_harness = boot.harness_runner(harness_main, henv, env, world.new_math)
  end
  for _, warning in ipairs(app_warnings) do output.write("warning", warning) end
  if not make_app then return failed(app_error, 2) end
  chunk = make_app(env)
  jit.off(chunk, true)
  local ok, err = true, nil
  if run_harness then ok, err = xpcall(run_harness, handler) end
  if ok then ok, err = xpcall(chunk, handler) end
  if ok and events.pending() > 0 then ok, err = xpcall(events.run, handler) end
  flush_streams()
  if not ok then
    if err == MEMORY_ERROR then return fatal(k, "out of memory", EXIT_MEMORY) end
    failed(boot.error_text(err), 1)
  end
end


-- the checks that stop a run (splaylab.sim.watch): progress cells, spin check, still time
local checks = watch.new { progress = spec.progress, spin_limit = spec.spin_limit, fatal = fatal }
local on_tick = checks.tick
kernel = kernel_lib.new {
  start_node = start_node,
  emit = emit,
  grace = tonumber(spec.grace) or 2,
  before_resume = function(node)
    string_of_node = node.string or string
    checks.resumed(kernel, node)
  end,
  after_resume = function()
    string_of_node = string
    checks.paused()
  end,
}
out_limits = output_limits.new(spec.output, emit, function(t, fn) kernel:at(t, fn) end)
checks.start()

-- churn and the run --------------------------------------------------------------------------
local function churn_event(t, k, kind, graceful)
  local node = kernel.up[k]
  local alive = node ~= nil and node.left == nil
  if kind == "join" then
    if alive then return end
    emit(k, kernel.now, "churn", format("join\t%s", t))
    kernel:start(k, { ip = spec.nodes[k].ip })
  elseif alive then
    emit(k, kernel.now, "churn", format("leave\t%s%s", t, graceful and "\t1" or ""))
    kernel:leave(node, graceful)
  end
end

if spec.churn then
  for _, e in ipairs(spec.churn) do
    local t, k, kind, graceful = tonumber(e[1]), tonumber(e[2]), e[3], e[4] == true
    kernel:at(t, function() churn_event(t, k, kind, graceful) end)
  end
else
  for k = 1, #spec.nodes do kernel:start(k, { ip = spec.nodes[k].ip }) end
end

local until_t = tonumber(spec["until"]) or tonumber(spec.time)
local ok, err = pcall(kernel.run, kernel, until_t, on_tick, 1024)
if not ok then
  if err == MEMORY_ERROR then fatal(kernel.current and kernel.current.k or 0, "out of memory", EXIT_MEMORY) end
  fatal(0, "splaylab simulator internal error: " .. tostring(err), 3)
end
kernel:stop_all(spec.stop_reason or format("stopped: duration of %g s reached", until_t))
flush_out()
on_tick(kernel)
-- the peak resident memory, for benchmarks (after the run: no effect on its records)
local status = io.open("/proc/self/status")
local peak_kb = status and tonumber(status:read("*a"):match("VmHWM:%s*(%d+)")) or 0
if status then status:close() end
ffi.C.dprintf(2, "done %.3f %.0f %.0f %.0f\n", kernel.now, kernel.events, kernel.started, peak_kb)
os.exit(kernel.failed and EXIT_FAILED or EXIT_OK)
