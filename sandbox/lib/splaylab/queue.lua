--[[
splaylab.queue - "splay.queue": a FIFO with O(1) push and pop.

  local q = queue.new(); q:push(x); q:pop() -> x | nil; q:peek(); q:size(); q:empty()
  SPLAY's names and call style work too: q.insert(x), q.get() -> x | nil, q.empty(), q.size(),
  q.flush() (SPLAY's queue is a table of closures: bt.lua calls p.have.insert(i)); q:insert(x)
  and q:remove() are aliases of push and pop. Either style may be used on any queue.
]]
local M = { _NAME = "splaylab.queue", _VERSION = "0.1" }

local Q = {}
Q.__index = Q

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
function Q:flush() self.first, self.last, self.items = 1, 0, {} end
Q.insert, Q.remove, Q.get = Q.push, Q.pop, Q.pop

-- q.name(...) and q:name(...) alike: the first argument is dropped when it is the queue itself
local function either(q, f)
  return function(a, ...)
    if a == q then return f(q, ...) end
    return f(q, a, ...)
  end
end

function M.new()
  local q = setmetatable({ first = 1, last = 0, items = {} }, Q)
  for name, f in pairs(Q) do
    if name ~= "__index" then q[name] = either(q, f) end
  end
  return q
end

return M
