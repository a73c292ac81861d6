--[[
splaylab.output - the only way the node runtime writes to stdout.

Every line on stdout is one record `LEVEL<TAB>TEXT` (docs/architecture.md, "Node runtime").
write(level, text) splits text on "\n" so that each piece becomes its own record with the
same level: student text can never start a record of its own choosing. Each record is
flushed at once so the daemon sees lines live.

Limits and holes: no rate limit and no line-length cap here (the daemon caps lines at 4096
bytes and batches); "\r" and binary bytes are passed through unchanged.

Usage: local output = require "splaylab.output"; output.write("info", "hello")
]]
local M = {
  _NAME = "splaylab.output",
  _VERSION = "0.1",
  -- probe and trace: the measurement plane (docs/trace.md), written by the runtime only
  LEVELS = { debug = true, info = true, warning = true, error = true, print = true, metric = true,
    probe = true, trace = true },
  -- settings.out: the file records go to (specs replace it with a buffer)
  settings = { out = io.stdout },
}

local tostring, type, error = tostring, type, error
local find, sub = string.find, string.sub

-- Write `text` as one or more records of `level`.
function M.write(level, text)
  if not M.LEVELS[level] then
    error("splaylab.output: unknown level " .. tostring(level), 2)
  end
  if type(text) ~= "string" then text = tostring(text) end
  local out = M.settings.out
  local start = 1
  while true do
    local nl = find(text, "\n", start, true)
    local line = nl and sub(text, start, nl - 1) or sub(text, start)
    out:write(level, "\t", line, "\n")
    if not nl then break end
    start = nl + 1
  end
  out:flush()
end

-- A line-buffered writer for io.write-like APIs: text accumulates until a newline.
function M.stream(level)
  local pending = ""
  local s = {}
  function s.write(text)
    pending = pending .. text
    local last = nil
    local pos = 1
    while true do
      local nl = find(pending, "\n", pos, true)
      if not nl then break end
      last = nl
      pos = nl + 1
    end
    if last then
      M.write(level, sub(pending, 1, last - 1))
      pending = sub(pending, last + 1)
    end
  end
  function s.flush()
    if pending ~= "" then
      M.write(level, pending)
      pending = ""
    end
  end
  return s
end

return M
