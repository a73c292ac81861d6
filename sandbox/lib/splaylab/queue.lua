--[[
splaylab.queue - "splay.queue": a FIFO with O(1) push and pop.

  local q = queue.new(); q:push(x); q:pop() -> x | nil; q:peek(); q:size(); q:empty()
  q:insert(x) and q:remove() are aliases of push and pop (SPLAY's names).
]]
local M = { _NAME = "splaylab.queue", _VERSION = "0.1" }

local Q = {}
Q.__index = Q

function M.new() return setmetatable({ first = 1, last = 0, items = {} }, Q) end

function Q:push(x)
  self.last = self.last + 1
  self.items[self.last] = x
end

function Q:pop()
  if self.first > self.last then return nil end
  local x = self.items[self.first]
  self.items[self.first] = nil
  self.first = self.first + 1
  return x
end

function Q:peek() return self.items[self.first] end
function Q:size() return self.last - self.first + 1 end
function Q:empty() return self.first > self.last end
Q.insert, Q.remove = Q.push, Q.pop

return M
