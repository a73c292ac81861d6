--[=[
splaylab.harness - the capability an assignment's harness receives (docs/grading.md, "What the
grader trusts"). Runtime only.

node.lua and the simulator load harness.lua (when the job names one) BEFORE the submission, in
an environment of its own (its own globals, library copies and module copies: the submission
only ever holds copies of the runtime's modules, so it cannot change what the harness calls),
and pass it this table as the chunk's first argument:

  local h = ...
  h.app                       the submission's global environment (read its globals, call its
                              functions; h.global(name) reads one without running metamethods)
  h.job                       a private copy of the `job` table
  h.record(name, value [, fields])   a trusted record (stdout level `probe`): the grader's
                              checks read these and the trace, never the app's own metrics/logs
  h.operation(name, fn, ...) -> op, seconds, ok, results...   runs fn(...) as a traced operation:
                              every rpc/urpc call made for it (nested calls and threads included)
                              carries its id; seconds measured by the runtime's clock
  h.reserve(name) -> op       an operation's id before it runs: h.operation(op, fn, ...) runs it
                              (a broadcast's message can carry its operation's id)
  h.served(op) -> bool        this node served a call of that operation (a message of it arrived)
  h.call(timeout, fn, ...) -> true, results... | false, err   runs fn(...) of the submission in a
                              thread of its own and waits at most timeout s: the submission never
                              holds a harness thread (coroutine.running() in fn is not the caller's,
                              so it cannot kill or stall it); err "timeout" or the error raised
  h.random([m [, n]])         math.random's contract on a generator of the harness's own
  h.now()                     the node's clock (virtual in simulation)

Nothing here is reachable from the submission: h exists only as the harness chunk's argument.
]=]
local platform = require "splaylab.platform"
local events = require "splaylab.events"
local output = require "splaylab.output"
local trace = require "splaylab.trace"
-- cjson with its default settings, which nothing changes (apps cannot require cjson; splay.json
-- has an instance of its own): one for the process, not one per simulated node (2.5 KB each)
local cjson = require("cjson")

local M = { _NAME = "splaylab.harness", _VERSION = "0.1" }

local type, pairs, error, tonumber, rawget, tostring = type, pairs, error, tonumber, rawget, tostring
-- never a method call on a string: string methods index the submission's string table
local sub, format = string.sub, string.format
local select, unpack, pcall = select, unpack, pcall
local function pack(...) return { n = select("#", ...), ... } end
local MAX_NAME, MAX_FIELDS, MAX_STRING = 100, 20, 512

-- name, value, fields as splay.metrics accepts them -> the record's JSON text
local function encode(name, value, fields)
  if type(name) ~= "string" or name == "" or #name > MAX_NAME then
    error("h.record: name must be a non-empty string of at most " .. MAX_NAME .. " bytes", 3)
  end
  value = tonumber(value)
  if not value or value ~= value or value == math.huge or value == -math.huge then
    error("h.record: value must be a finite number", 3)
  end
  local rec = { name = name, value = value }
  if fields ~= nil then
    if type(fields) ~= "table" then error("h.record: fields must be a table", 3) end
    local f, n = {}, 0
    for k, v in pairs(fields) do
      local tv = type(v)
      if type(k) ~= "string" or (tv ~= "string" and tv ~= "number" and tv ~= "boolean") then
        error("h.record: fields must map strings to strings, numbers or booleans", 3)
      end
      if tv == "string" and #v > MAX_STRING then v = sub(v, 1, MAX_STRING) end
      if tv == "number" and (v ~= v or v == math.huge or v == -math.huge) then v = tostring(v) end
      n = n + 1
      if n > MAX_FIELDS then error("h.record: at most " .. MAX_FIELDS .. " fields", 3) end
      f[k] = v
    end
    rec.fields = f
  end
  return cjson.encode(rec)
end

-- The capability. app_env: the submission's environment; job: a private job table;
-- new_math(seed): a math table whose random draws from a generator of its own.
function M.capability(app_env, job, new_math)
  local seed = (tonumber(platform.random_seed()) or 1) * 31 % 2147483647 + 17
  local rng = new_math(seed)
  local h = {
    app = app_env,
    job = job,
    now = function() return platform.now() end,
    random = rng.random,
    served = function(op) return trace:served(op) end,
    operation = function(name, fn, ...) return trace:operation(name, fn, ...) end,
    reserve = function(name) return trace:reserve(name) end,
  }
  function h.global(name) return rawget(app_env, name) end
  -- the event a call's thread fires names a token the submission cannot guess
  local calls, token = 0, format("%08x", rng.random(0, 0x7fffffff))
  function h.call(timeout, fn, ...)
    calls = calls + 1
    local name = "harness:" .. token .. ":" .. calls
    local args = { n = select("#", ...), ... }
    events.thread(function()
      events.fire(name, pack(pcall(fn, unpack(args, 1, args.n))))
    end)
    local got, res = events.wait(name, tonumber(timeout) or 10)
    if not got then return false, "timeout" end
    return unpack(res, 1, res.n)
  end
  function h.record(name, value, fields)
    output.write("probe", encode(name, value, fields))
  end
  return h
end

return M
