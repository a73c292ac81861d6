--[[
splaylab.boot - what a node is made of before its app runs, shared by node.lua (one node per
process) and the simulator (every node of a job in one process, sim/world.lua loads this module
once per node): the limits from job.json, the `job` table, and the modules student code can
require, bound to this node's platform identity.

Usage: local boot = require "splaylab.boot"
  local limits = boot.build_limits(spec.limits); local job = boot.build_job(spec, limits)
  local modules, loaders, fs = boot.runtime_modules(spec, job, limits)
  local henv = boot.app_env(boot.build_job(spec, limits), modules, loaders, fs)  -- a harness's, first
  local env, stdout_stream = boot.app_env(job, modules, loaders, fs)
  local run_harness = boot.compile_harness(harness_src, henv, env, new_math)  -- before app.lua
  local chunk, syntax_error = boot.compile_app(src, env)
  local ok, err = xpcall(chunk, boot.error_handler)
  output.write("error", boot.error_text(debug.traceback(co, err)))   -- a runtime error's record
]]
local M = { _NAME = "splaylab.boot", _VERSION = "0.1" }

-- Limits from job.json's optional "limits" table, named as the daemon writes them
-- (docs/architecture.md: max_sockets, max_send, max_receive are the descriptor's
-- network_max_*); defaults when absent.
local DEFAULT_LIMITS = {
  max_sockets = 256,
  max_send = 1024 * 1024 * 1024,
  max_receive = 1024 * 1024 * 1024,
  network_nb_ports = 1,
  udp_drop_ratio = 0,
  disk_max_size = 64 * 1024 * 1024,
  disk_max_files = 256,
  disk_max_file_descriptors = 64,
}

function M.build_limits(given)
  local limits = {}
  for k, v in pairs(DEFAULT_LIMITS) do limits[k] = v end
  if type(given) == "table" then
    for k, v in pairs(given) do
      if DEFAULT_LIMITS[k] ~= nil then limits[k] = tonumber(v) or limits[k] end
    end
    limits.bind_ports = type(given.bind_ports) == "table" and given.bind_ports or {}
    limits.connect_allow = type(given.connect_allow) == "table" and given.connect_allow or {}
    -- the controller's blacklist (daemon: welcome / `blacklist`): never reachable
    limits.connect_deny = type(given.connect_deny) == "table" and given.connect_deny or {}
  else
    limits.bind_ports, limits.connect_allow, limits.connect_deny = {}, {}, {}
  end
  return limits
end

function M.build_job(spec, limits)
  local function node(n)
    return { ip = tostring(n.ip), port = tonumber(n.port) }
  end
  local job = { nodes = {} }
  for i, n in ipairs(spec.nodes or {}) do job.nodes[i] = node(n) end
  job.me = node(spec.me or {})
  job.position = tonumber(spec.position)
  job.id = tonumber(spec.job_id)
  job.ref = job.id
  job.duration = tonumber(spec.duration)
  job.list_type = spec.list_type or "head"
  job.network = { max_sockets = limits.max_sockets, max_send = limits.max_send,
    max_receive = limits.max_receive, nb_ports = limits.network_nb_ports,
    udp_drop_ratio = limits.udp_drop_ratio }
  job.disk = { max_size = limits.disk_max_size, max_files = limits.disk_max_files,
    max_file_descriptors = limits.disk_max_file_descriptors }
  function job.get_live_nodes()
    local copy = {}
    for i, n in ipairs(job.nodes) do copy[i] = { ip = n.ip, port = n.port } end
    return copy
  end
  return job
end

-- The node's confined files (splaylab.fs), loaded and set up (the directory's files counted) on
-- the first file operation of the app or its harness: most apps never open a file, and the
-- module's closures and tables cost ~3 KB per node in a simulation of thousands. The directory
-- is the node's own: nothing but these functions writes there in between, so the count is the
-- one a set-up at start would make. Each forwarder ends in a tail call: an error at level 2
-- (a bad mode, io.lines of a missing file) still names the app's line.
-- Returns what splaylab.fs gives the environment: io_functions(), os_functions().
function M.lazy_fs(opts)
  local fs
  local function forward(name)
    return function(...)
      if not fs then
        fs = require "splaylab.fs"
        fs.init(opts)
      end
      return fs[name](...)
    end
  end
  return {
    io_functions = function()
      return { open = forward("open"), lines = forward("lines"), close = forward("close"), type = forward("type") }
    end,
    os_functions = function() return { remove = forward("remove"), rename = forward("rename") } end,
  }
end

-- The modules student code can require, built once for this node.
function M.runtime_modules(spec, job, limits)
  local platform = require "splaylab.platform"
  local socket = require "splaylab.socket"
  platform.identity = { position = job.position, ip = job.me.ip, port = job.me.port,
    job_id = job.id, seed = tonumber(spec.seed) }
  -- A graceful leave (SIGTERM) becomes an event of the loop (events.on_leave) instead of
  -- killing the process; where that is impossible (not Linux) SIGTERM keeps its default action.
  platform.catch_leave()
  math.randomseed(platform.random_seed())
  -- The message trace (docs/trace.md): job.json's `trace` block, {max_events, flush_after}.
  local t = spec.trace
  require("splaylab.trace"):init {
    enabled = t == true or type(t) == "table", max_events = type(t) == "table" and t.max_events or nil,
    learn = type(t) == "table" and t.learn == true,
    flush_after = type(t) == "table" and t.flush_after or nil,
    write = function(line) require("splaylab.output").write("trace", line) end,
    position = job.position, addresses = spec.addresses, job_nodes = spec.all_nodes or spec.nodes,
    nb_ports = limits.network_nb_ports,
  }
  -- spec.addresses: the simulator's prebuilt index of the job's addresses, shared by its nodes
  local peers = {}
  if not spec.addresses then
    for _, n in ipairs(spec.all_nodes or {}) do peers[#peers + 1] = n end
    for _, n in ipairs(job.nodes) do peers[#peers + 1] = n end
  end
  socket.init {
    me = job.me, peers = peers, addresses = spec.addresses, nb_ports = limits.network_nb_ports,
    bind_ports = limits.bind_ports, allow = limits.connect_allow, deny = limits.connect_deny,
    max_sockets = limits.max_sockets, max_send = limits.max_send,
    max_receive = limits.max_receive, udp_drop_ratio = limits.udp_drop_ratio,
    net = spec.net, net_epoch = spec.net_epoch, position = job.position,
    job_nodes = spec.all_nodes or spec.nodes, local_nodes = spec.local_nodes,
    relay = spec.relay, job_id = job.id,
  }
  local fs = M.lazy_fs { root = spec.fs_root or ".", max_size = limits.disk_max_size,
    max_files = limits.disk_max_files, max_open = limits.disk_max_file_descriptors }
  -- splay.async_dns's table: the simulator's index of the job's addresses, or the job's nodes
  -- in position order (a node's own job.nodes may be a bootstrap subset)
  local dns_table = { me_position = job.position, addresses = spec.addresses,
    nodes = not spec.addresses and (spec.all_nodes or spec.nodes) or nil }
  local modules = {
    ["splay.socket"] = socket.public(),
    ["splay.coxpcall"] = require "splaylab.coxpcall",
  }
  -- The optional libraries are loaded on the app's first require only (memory per node:
  -- an app that does not use rpc, json, ... does not pay for them). Each environment gets a
  -- copy of the module (M.facade), never the runtime's own table.
  local function lazy(name, init)
    return function(env)
      local m = require(name)
      if init then init(m, env) end
      return M.facade(m)
    end
  end
  -- splay.X given as it is, splaylab.X: one function for all of them (a closure each cost
  -- ~150 bytes per library and node, in a simulation of thousands of nodes)
  local function library(_, name) return M.facade(require("splaylab." .. name:sub(7))) end
  local loaders = {
    -- splay.base: the globals events, misc, log, socket and coroutine-safe pcall/xpcall
    ["splay.base"] = function(env)
      local sock, coxpcall = env.require("splay.socket"), env.require("splay.coxpcall")
      env.socket = sock
      env.pcall, env.xpcall = coxpcall.pcall, coxpcall.xpcall
      return { events = env.events, misc = env.misc, log = env.log, socket = sock }
    end,
    ["splay.net"] = library,
    ["splay.llenc"] = library,
    ["splay.json"] = library,
    ["splay.benc"] = library,
    -- rpc serves the app's globals, never a harness's
    ["splay.rpc"] = lazy("splaylab.rpc", function(m, env) if not M.harness_envs[env] then m.settings.env = env end end),
    ["splay.urpc"] = lazy("splaylab.urpc", function(_, env)
      if not M.harness_envs[env] then require("splaylab.rpc").settings.env = env end
    end),
    ["splay.queue"] = library,
    ["splay.metrics"] = library,
    -- the rest of SPLAY's libraries (docs/splay-compat.md)
    ["splay.rpcq"] = lazy("splaylab.rpcq", function(_, env)
      if not M.harness_envs[env] then require("splaylab.rpc").settings.env = env end
    end),
    ["splay.bits"] = library,
    ["splay.data_bits"] = library,
    ["splay.lbinenc"] = library,
    ["splay.token_bucket"] = library,
    ["splay.topo_socket"] = library,
    -- names from the job's own address table, never the host's resolver
    ["splay.async_dns"] = lazy("splaylab.async_dns", function(m) m.init(dns_table) end),
    -- LuaCrypto (luaossl underneath): like luaL_openlib, require also sets the global `crypto`;
    -- each environment gets its own copies of the sub-tables
    crypto = function(env)
      local m = require "splaylab.crypto"
      local own = M.facade(m)
      own.evp, own.hmac, own.rand = M.facade(m.evp), M.facade(m.hmac), M.facade(m.rand)
      if rawget(env, "crypto") == nil then env.crypto = own end
      return own
    end,
    ["crypto.evp"] = function(env) return env.require("crypto").evp end,
    ["crypto.hmac"] = function(env) return env.require("crypto").hmac end,
    ["crypto.rand"] = function(env) return env.require("crypto").rand end,
  }
  return modules, loaders, fs
end

-- What an environment gets of a runtime module: a copy of its fields (functions and the
-- settings table are shared), so that code replacing a field (events.on_error, rpc.call,
-- misc.time...) changes its own copy only: never what the runtime or a harness calls. The
-- runtime's hooks (events.on_error, on_exit, on_idle) are not copied.
local HOOKS = { on_error = true, on_exit = true, on_idle = true }
function M.facade(m)
  local copy = {}
  for k, v in pairs(m) do
    if not HOOKS[k] then copy[k] = v end
  end
  return copy
end

-- The environment app.lua (or a harness) runs in (splaylab.env), its print and io.write going
-- to `print` records; the stream is returned to be flushed when the node ends.
function M.app_env(job, modules, loaders, fs)
  local output = require "splaylab.output"
  local trace = require "splaylab.trace"
  local own = {}
  for name, m in pairs(modules) do own[name] = M.facade(m) end
  local stdout_stream = output.stream("print")
  local function print_(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    output.write("print", table.concat(parts, "\t"))
  end
  local env = require("splaylab.env").build {
    job = job, events = M.facade(require "splaylab.events"), log = require "splaylab.log",
    misc = M.facade(require "splaylab.misc"),
    print = print_, io_write = stdout_stream.write, modules = own, loaders = loaders,
    io_extra = fs.io_functions(), os_extra = fs.os_functions(),
  }
  -- coroutines the code makes work for the operation of the thread that made them (trace.lua)
  local create, resume, error_ = coroutine.create, coroutine.resume, error
  local function pass(ok, ...)
    if not ok then error_((...), 0) end
    return ...
  end
  env.coroutine.create = function(f) return trace:adopt(create(f)) end
  env.coroutine.wrap = function(f)
    local co = trace:adopt(create(f))
    return function(...) return pass(resume(co, ...)) end
  end
  return env, stdout_stream
end

-- A harness (docs/grading.md, "What the grader trusts"): compiled in its own environment henv
-- (built before the submission's), it gets the capability (splaylab.harness) as its argument.
-- -> a function that runs it, or nil and the compiler's message ("harness.lua:LINE: ...").
M.harness_envs = setmetatable({}, { __mode = "k" })

function M.compile_harness(src, henv, app_env, new_math)
  local chunk, err = load(src, "=harness.lua", "t", henv)
  if not chunk then return nil, tostring(err) end
  return M.harness_runner(chunk, henv, app_env, new_math)
end

--- The harness's main function (made in henv: the simulator compiles it once for every node)
--- -> the function that runs it with its capability.
function M.harness_runner(chunk, henv, app_env, new_math)
  M.harness_envs[henv] = true
  local h = require("splaylab.harness").capability(app_env, henv.job, new_math)
  return function() return chunk(h) end
end

-- app.lua's text compiled in env, as Lua 5.1 read it (splaylab.lua51: each unknown escape
-- LuaJIT refuses is a warning record naming its line): the chunk, or nil and the syntax
-- error's record text.
function M.compile_app(src, env)
  local lua51 = require "splaylab.lua51"
  if string.sub(src, 1, 1) == "\27" then return nil, lua51.bytecode_refused("app.lua") end
  local chunk, err, warnings = lua51.load(src, "app.lua", env)
  for _, w in ipairs(warnings) do require("splaylab.output").write("warning", w) end
  if not chunk then return nil, tostring(err) end
  return chunk
end

M.MEMORY_ERROR = "not enough memory"

-- xpcall's handler around the app: a traceback, or the memory error as it is.
function M.error_handler(err)
  if err == M.MEMORY_ERROR then return err end
  -- After a stack overflow the handler itself may have no room: keep at least the message.
  local ok, tb = pcall(debug.traceback, tostring(err), 2)  -- 2: skip pcall's own frame
  return ok and tb or tostring(err)
end

-- A runtime error's text: the message and the student's frames, without the runtime's own
-- (node.lua, sim.lua, splaylab/*, [C]). String functions are called directly, not as methods:
-- the string metatable indexes the student's own (changeable) string table.
local find, match, gmatch, concat = string.find, string.match, string.gmatch, table.concat
local RUNTIME_FRAMES = { "node.lua:", "sim.lua:", "splaylab/", "[C]: in function 'xpcall'",
  "[C]: in function 'resume'", "[C]: in ?" }

local function clean_traceback(tb)
  local kept = {}
  local first = true
  for line in gmatch(tb .. "\n", "(.-)\n") do
    local internal = false
    if not first then
      for _, frame in ipairs(RUNTIME_FRAMES) do
        if find(line, frame, 1, true) then internal = true; break end
      end
      internal = internal or find(line, "^%s*%[C%]: at 0x") ~= nil
    end
    first = false
    if not internal then kept[#kept + 1] = line end
  end
  return concat(kept, "\n")
end

function M.error_text(tb)
  tb = clean_traceback(tostring(tb))
  -- LuaJIT's interpreter raises "stack overflow" with no location: name the student's line
  -- from the first frame of app.lua in the traceback.
  if not find(tb, "^app%.lua:%d+:") then
    local line = match(tb, "\n%s*app%.lua:(%d+):")
    if line then tb = "app.lua:" .. line .. ": " .. tb end
  end
  return tb
end

return M
