--[[
splaylab.sim.output_limits - the output limits of a simulated job, on virtual time: the rule of
daemon/splayd/output_limits.py (the daemon's and the local runner's), with its numbers and
words from sim.json's "output" block (sandbox/simulate.py writes it from that module), so the
same program gives the same records simulated and live.

- rate: at most `lines_per_second` lines per node in a window of `window` virtual seconds that
  opens at the node's first line after the previous window closed; the rest of the window's
  lines are dropped and replaced by one record at the window's end (a timed action), at the
  node's next line or at its end, whichever comes first.
- budget: at most `max_size` bytes per job (a line costs #level + 1 + #text + 1, cut at
  max_line); the line that would pass it is dropped with one record, every later line of the
  job silently. Nodes keep running.
Measurement records (probe, trace) are neither counted nor dropped nor cut. Other lines longer
than `max_line` bytes are cut and end with `truncated_mark`, as the daemon cuts them.

A limit record goes out as emit(k, t, "limit", KIND .. "\t" .. N .. "\t" .. TEXT), KIND "rate"
or "budget" (N: lines dropped, 0 for the budget): a level no node can write, so readers know
the record is the simulator's.

Usage (sim.lua):
  local limits = require("splaylab.sim.output_limits").new(spec.output, emit, function(t, fn) kernel:at(t, fn) end)
  local line = limits:admit(k, now, level, text)   -- the text to emit (maybe cut), or nil: dropped
  limits:close(k, now)                             -- the node's output ended
]]
local M = { _NAME = "splaylab.sim.output_limits", _VERSION = "0.1" }

local format, sub, huge = string.format, string.sub, math.huge
local MEASUREMENT = { probe = true, trace = true }

local Limits = {}
Limits.__index = Limits

--- spec: sim.json's "output" (nil: no limits); emit(k, t, level, text); at(t, fn): a timed action.
function M.new(spec, emit, at)
  spec = spec or {}
  return setmetatable({
    rate = tonumber(spec.lines_per_second), max_size = tonumber(spec.max_size), window = tonumber(spec.window) or 1,
    rate_one = spec.rate_one or "log rate limit: 1 line dropped",
    rate_many = spec.rate_many or "log rate limit: %d lines dropped",
    budget_text = spec.budget_text or "log budget: job output limit reached, further output dropped",
    max_line = tonumber(spec.max_line), mark = spec.truncated_mark or "",
    used = 0, spent = false, nodes = {}, emit = emit, at = at,
  }, Limits)
end

function Limits:_node(k)
  local n = self.nodes[k]
  if not n then
    n = { start = -huge, lines = 0, dropped = 0 }
    self.nodes[k] = n
  end
  return n
end

-- The lines the rate dropped in node k's current window, as one record at t.
function Limits:_report(k, n, t)
  local dropped = n.dropped
  if dropped == 0 then return end
  n.dropped = 0
  local text = dropped == 1 and self.rate_one or format(self.rate_many, dropped)
  self.emit(k, t, "limit", "rate\t" .. dropped .. "\t" .. text)
end

-- The window's record is due at its end, unless sent before. (A function of its own: a closure
-- made inside admit would make every return of admit close upvalues, which the JIT does not
-- compile, and admit sees every line of every node.)
function Limits:_report_at_window_end(k, n)
  local start = n.start
  self.at(start + self.window, function()
    if self.nodes[k] == n and n.start == start then self:_report(k, n, start + self.window) end
  end)
end

--- The text node k's line of `level` goes out with at virtual time t, or nil when dropped.
function Limits:admit(k, t, level, text)
  if MEASUREMENT[level] then return text end
  if self.spent then return nil end
  local max_line, size = self.max_line, #level + 1 + #text   -- the line as a node process writes it
  if max_line and size > max_line then
    text, size = sub(text, 1, max_line - #level - 1) .. self.mark, max_line
  end
  if self.rate then
    local n = self:_node(k)
    if t - n.start >= self.window then
      self:_report(k, n, t)
      n.start, n.lines = t, 0
    end
    n.lines = n.lines + 1
    if n.lines > self.rate then
      n.dropped = n.dropped + 1
      if n.dropped == 1 then self:_report_at_window_end(k, n) end
      return nil
    end
  end
  if self.max_size then
    local cost = size + 1   -- and its newline
    if self.used + cost > self.max_size then
      self.spent = true
      self.emit(k, t, "limit", "budget\t0\t" .. self.budget_text)
      return nil
    end
    self.used = cost + self.used
  end
  return text
end

--- Node k's output ended (its end, the run's end): the pending record, and a fresh window for
--- a later session of that position.
function Limits:close(k, t)
  local n = self.nodes[k]
  if n then
    self:_report(k, n, t)
    self.nodes[k] = nil
  end
end

return M
