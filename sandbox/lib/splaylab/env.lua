--[[
splaylab.env - the restricted global environment of student code.

The environment is built from data (splaylab.env_rules): ALLOW lists what is copied from the
runtime's own globals ("lib.*" copies a whole library minus its EXCLUDE entries), EXCLUDE gives
the reason for every name left out or replaced, and REPLACED names get a safe variant below.
Reaching an excluded library field (os.execute, io.popen, string.dump, debug.getinfo, ...)
raises "X is not available in the SplayLab sandbox: <reason>"; excluded globals (ffi, jit,
package, newproxy) are simply nil so that feature tests like `if jit then` keep working, and
require() of them raises the same kind of error.

Process-wide effect: build() points the shared string metatable's __index at the sandbox's
string table (so ("").dump is unreachable). This is sound because node.lua runs one node per
process; a multi-node simulation in one Lua state would need a different design.
Files: io.open/lines/close/type and os.remove/rename exist only when the runtime passes the
confined versions (opts.io_extra, opts.os_extra from splaylab.fs). Extra modules for require
come as opts.modules (name -> table) and opts.loaders (name -> function(env, name), run once: how
splay.base sets its globals). CPU, wall time and memory are enforced outside Lua (rlimits and
the daemon's clock), since hooks do not fire in JIT-compiled code.

Usage: local env = require("splaylab.env").build{job = job, events = e, log = l, misc = m,
  print = function(...) end, io_write = function(s) end}
]]
local M = { _NAME = "splaylab.env", _VERSION = "0.1" }

local RUNTIME_G = _G
local type, pairs, ipairs, error, tostring, select, rawget, setmetatable, getmetatable =
  type, pairs, ipairs, error, tostring, select, rawget, setmetatable, getmetatable
local real_load, real_getfenv, real_setfenv, real_collectgarbage =
  load, getfenv, setfenv, collectgarbage
local find, match, format = string.find, string.match, string.format
local concat = table.concat

-- LuaJIT capabilities, detected once.
M.luajit = rawget(RUNTIME_G, "jit") ~= nil
M.bytecode_blocked = real_load("\27LJ\2", "probe", "t", {}) == nil

-- What student code gets (ALLOW), and every name left out or replaced with the reason (EXCLUDE)
local rules = require "splaylab.env_rules"
M.ALLOW, M.EXCLUDE = rules.ALLOW, rules.EXCLUDE

local function excluded_index(libname)
  return function(_, key)
    local reason = M.EXCLUDE[libname .. "." .. tostring(key)]
    if reason then
      error(format("%s.%s is not available in the SplayLab sandbox: %s", libname, tostring(key), reason), 2)
    end
    return nil
  end
end

local function guard(libname, t)
  return setmetatable(t, { __index = excluded_index(libname), __metatable = "locked" })
end

local function copy_lib(name)
  local src, dst = RUNTIME_G[name], {}
  for k, v in pairs(src) do
    if not M.EXCLUDE[name .. "." .. k] then dst[k] = v end
  end
  return dst
end

local function safe_relative(path)
  return type(path) == "string" and path ~= "" and not find(path, "^/")
    and not find("/" .. path .. "/", "/%.%./") and not find(path, "%z")
end

-- Build a fresh environment. opts: job, events, log, misc, print(...), io_write(text).
function M.build(opts)
  local env = {}
  local student_envs = setmetatable({ [env] = true }, { __mode = "k" })

  for _, name in ipairs(M.ALLOW) do
    local lib, field = match(name, "^([%w_]+)%.([%w_*]+)$")
    if not lib then
      env[name] = RUNTIME_G[name]
    elseif field == "*" then
      env[lib] = copy_lib(lib)
    else
      env[lib] = env[lib] or {}
      env[lib][field] = RUNTIME_G[lib][field]
    end
  end
  env.os = guard("os", env.os)
  env.debug = guard("debug", env.debug)
  env.string = guard("string", env.string)
  -- Lua 5.1's compatibility names, on in the Lua 5.1 SPLAY ran (LUA_COMPAT_MOD, LUA_COMPAT_GFIND)
  -- and still called by its applications (pastry-new.lua and colfeed.lua: math.mod)
  env.math.mod = env.math.mod or math.fmod
  rawset(env.string, "gfind", rawget(env.string, "gfind") or string.gmatch)
  env.io = guard("io", {
    write = function(...)
      for i = 1, select("#", ...) do opts.io_write(tostring((select(i, ...)))) end
      return env.io
    end,
    read = function() return nil end,
  })

  env._G = env
  env.job = opts.job
  env.events, env.log, env.misc = opts.events, opts.log, opts.misc
  env.print = opts.print

  -- load family: text mode only, the sandbox environment unless one is given.
  function env.load(chunk, name, _, e)
    if e ~= nil then
      if type(e) ~= "table" then error("bad argument #4 to 'load' (table expected)", 2) end
      student_envs[e] = true
    end
    return real_load(chunk, name, "t", e or env)
  end
  function env.loadstring(s, name)
    return real_load(s, name, "t", env)
  end
  function env.loadfile(path)
    if not safe_relative(path) then
      return nil, "loadfile: only relative paths inside the node's directory: " .. tostring(path)
    end
    local f, err = io.open(path, "rb")
    if not f then return nil, err end
    local src = f:read("*a")
    f:close()
    return real_load(src, "=" .. path, "t", env)
  end
  function env.dofile(path)
    local f, err = env.loadfile(path)
    if not f then error(err, 2) end
    return f()
  end

  -- getfenv never hands out a table the student did not make (getfenv(0).os, getfenv(print)).
  function env.getfenv(f)
    local target
    if f == nil then f = 1 end
    if type(f) == "number" then
      if f == 0 then return env end
      if f < 0 then error("bad argument #1 to 'getfenv' (level must be non-negative)", 2) end
      target = real_getfenv(f + 1)
    else
      target = real_getfenv(f)
    end
    if student_envs[target] then return target end
    return env
  end
  function env.setfenv(f, t)
    if type(t) ~= "table" then error("bad argument #2 to 'setfenv' (table expected)", 2) end
    if f == 0 then error("setfenv(0, ...) is not available in the SplayLab sandbox: " .. M.EXCLUDE.setfenv, 2) end
    local current
    if type(f) == "number" then
      if f < 1 then error("bad argument #1 to 'setfenv' (level must be positive)", 2) end
      current = real_getfenv(f + 1)
    else
      current = real_getfenv(f)
    end
    if not student_envs[current] then
      error("setfenv on this function is not available in the SplayLab sandbox: " .. M.EXCLUDE.setfenv, 2)
    end
    student_envs[t] = true
    if type(f) == "number" then return real_setfenv(f + 1, t) end
    return real_setfenv(f, t)
  end

  function env.getmetatable(v)
    if type(v) == "string" then return nil end
    return getmetatable(v)
  end

  function env.gcinfo() return math.floor(real_collectgarbage("count")) end

  function env.collectgarbage(opt)
    if opt == "count" then return real_collectgarbage("count") end
    -- SPLAY's apps collect before printing their memory (chord_p.lua's debug): harmless
    if opt == nil or opt == "collect" then real_collectgarbage("collect"); return 0 end
    error(format("collectgarbage('%s') is not available in the SplayLab sandbox: %s",
      tostring(opt or "collect"), M.EXCLUDE.collectgarbage), 2)
  end

  -- Confined file access (splaylab.fs), when the runtime gives it.
  for k, v in pairs(opts.io_extra or {}) do rawset(env.io, k, v) end
  for k, v in pairs(opts.os_extra or {}) do rawset(env.os, k, v) end

  local base = { events = opts.events, log = opts.log, misc = opts.misc }
  local modules = {
    ["splay.base"] = base, ["splay.events"] = opts.events, ["splay.log"] = opts.log,
    ["splay.misc"] = opts.misc,
    string = env.string, table = env.table, math = env.math, coroutine = env.coroutine,
    os = env.os, io = env.io, bit = env.bit, debug = env.debug,
  }
  for name, m in pairs(opts.modules or {}) do modules[name] = m end
  -- loaders run once, on the first require, with the environment (splay.base sets globals)
  local loaders, loaded = opts.loaders or {}, {}
  function env.require(name)
    if loaders[name] then
      if loaded[name] == nil then loaded[name] = loaders[name](env, name) end
      return loaded[name]
    end
    local m = modules[name]
    if m ~= nil then return m end
    local names, seen = {}, {}
    for _, list in ipairs({ modules, loaders }) do
      for k in pairs(list) do
        if find(k, "^splay%.") and not seen[k] then seen[k] = true; names[#names + 1] = k end
      end
    end
    table.sort(names)
    local reason = M.EXCLUDE[tostring(name)]
    error(format("module '%s' is not available in the SplayLab sandbox%s (available: %s)",
      tostring(name), reason and (": " .. reason) or "", concat(names, ", ")), 2)
  end

  -- The one process-wide change: strings index the sandbox's string table.
  getmetatable("").__index = env.string
  return env
end

return M
