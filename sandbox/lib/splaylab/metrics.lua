--[[
splaylab.metrics - "splay.metrics", a SplayLab extension: measurements beside the log.

  metrics.observe(name, value [, fields])   one observation (a latency, a hop count...)
  metrics.count(name [, n])                 add n (default 1) to a counter
Each call writes one stdout record `metric<TAB>{"name":..,"value":..,"type":"observe"|"count"
[, "fields":{..}]}` (docs/architecture.md, "Node runtime"); the runner and the daemon turn
them into metric records. name: a string of at most 100 bytes; value: a finite number;
fields: a flat table of string keys to strings, numbers or booleans.
]]
local output = require "splaylab.output"
-- cjson with its default settings, which nothing changes (apps cannot require cjson; splay.json
-- has an instance of its own): one for the process, not one per simulated node (2.5 KB each)
local cjson = require("cjson")

local M = { _NAME = "splaylab.metrics", _VERSION = "0.1", settings = { max_name = 100, max_fields = 20 } }

local type, pairs, error, tonumber = type, pairs, error, tonumber

local function check_name(name)
  if type(name) ~= "string" or name == "" or #name > M.settings.max_name then
    error("metrics: name must be a non-empty string of at most " .. M.settings.max_name .. " bytes", 3)
  end
end

local function check_value(v)
  v = tonumber(v)
  if not v or v ~= v or v == math.huge or v == -math.huge then
    error("metrics: value must be a finite number", 3)
  end
  return v
end

function M.observe(name, value, fields)
  check_name(name)
  local rec = { name = name, value = check_value(value), type = "observe" }
  if fields ~= nil then
    if type(fields) ~= "table" then error("metrics: fields must be a table", 2) end
    local f, n = {}, 0
    for k, v in pairs(fields) do
      local tv = type(v)
      if type(k) ~= "string" or (tv ~= "string" and tv ~= "number" and tv ~= "boolean") then
        error("metrics: fields must map strings to strings, numbers or booleans", 2)
      end
      n = n + 1
      if n > M.settings.max_fields then error("metrics: at most " .. M.settings.max_fields .. " fields", 2) end
      f[k] = v
    end
    rec.fields = f
  end
  output.write("metric", cjson.encode(rec))
end

function M.count(name, n)
  check_name(name)
  output.write("metric", cjson.encode({ name = name, value = check_value(n == nil and 1 or n), type = "count" }))
end

return M
