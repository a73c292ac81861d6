--[[
A model of the simulator's memory layout (bench/sim_locality.py runs it): what a "call" costs
when it runs a chain of runtime functions on two nodes drawn at random, as the population grows,
for three layouts of the runtime:

  instances  each node its own instance of every module (what splaylab.sim.world builds today):
             a module table of closures, each closure over upvalues of its own node
  shared     one set of functions for every node; each node one state table per module,
             handed to the function it runs
  compact    one set of functions; each node one array holding every module's state

Every layout does the same work per call (the same 30 functions, 6 state reads and writes
each) and holds about the same heap per node (a filler of small tables stands for the node's
other data: fingers, connections, buffers). Only where the touched objects live differs.
Usage: luajit bench/lua/locality.lua LAYOUT NODES CALLS -> one line: layout, nodes, KB per
node, microseconds per call.
]]
local layout, N, CALLS = arg[1] or "instances", tonumber(arg[2]) or 64, tonumber(arg[3]) or 200000
local MODS, FUNCS = 40, 8   -- runtime modules a node loads, functions each
local CHAIN = 30            -- functions a call runs on each of its two nodes
local FILLER = 40           -- small tables per module and node: the node's other data
math.randomseed(1)

local chain = {}            -- which (module, function) a call runs, the same for every call
for i = 1, CHAIN do chain[i] = { math.random(MODS), math.random(FUNCS) } end

local function filler(node)
  for _ = 1, MODS * FILLER do node.filler[#node.filler + 1] = { 1, 2 } end
end

local nodes, funcs = {}, {}
if layout == "instances" then
  local function instance()
    local s1, s2, s3, s4, s5, s6 = 0, 0, {}, {}, 0, 0
    local m = {}
    for f = 1, FUNCS do
      m[f] = function(x)
        s1 = s1 + x; s2 = s2 + 1; s3[1] = x; s4[2] = s1; s5 = s5 + s2; s6 = s6 + 1
        return s1
      end
    end
    return m
  end
  for n = 1, N do
    local node = { mods = {}, filler = {} }
    for k = 1, MODS do node.mods[k] = instance() end
    filler(node)
    nodes[n] = node
  end
elseif layout == "shared" then
  for k = 1, MODS do
    funcs[k] = {}
    for f = 1, FUNCS do
      funcs[k][f] = function(s, x)
        s.s1 = s.s1 + x; s.s2 = s.s2 + 1; s.s3[1] = x; s.s4[2] = s.s1; s.s5 = s.s5 + s.s2; s.s6 = s.s6 + 1
        return s.s1
      end
    end
  end
  for n = 1, N do
    local node = { state = {}, filler = {} }
    for k = 1, MODS do node.state[k] = { s1 = 0, s2 = 0, s3 = {}, s4 = {}, s5 = 0, s6 = 0 } end
    filler(node)
    nodes[n] = node
  end
elseif layout == "compact" then
  for k = 1, MODS do
    funcs[k] = {}
    local b = (k - 1) * 6
    for f = 1, FUNCS do
      funcs[k][f] = function(s, x)
        s[b + 1] = s[b + 1] + x; s[b + 2] = s[b + 2] + 1; s[b + 3] = x; s[b + 4] = s[b + 1]
        s[b + 5] = s[b + 5] + s[b + 2]; s[b + 6] = s[b + 6] + 1
        return s[b + 1]
      end
    end
  end
  for n = 1, N do
    local node = { state = {}, filler = {} }
    for i = 1, MODS * 6 do node.state[i] = 0 end
    filler(node)
    nodes[n] = node
  end
else
  error("layout: instances, shared or compact, not " .. tostring(layout))
end

collectgarbage()
collectgarbage()
local kb_per_node = collectgarbage("count") / N

local function call_on(node)
  local acc = 0
  if layout == "instances" then
    local mods = node.mods
    for i = 1, CHAIN do
      local c = chain[i]
      acc = acc + mods[c[1]][c[2]](i)
    end
  else
    local state = node.state
    for i = 1, CHAIN do
      local c = chain[i]
      local k = c[1]
      acc = acc + funcs[k][c[2]](layout == "shared" and state[k] or state, i)
    end
  end
  return acc
end

local random = math.random
local t0 = os.clock()
for _ = 1, CALLS do
  call_on(nodes[random(N)])
  call_on(nodes[random(N)])
end
local dt = os.clock() - t0
print(string.format("%s\t%d\t%.0f\t%.3f", layout, N, kb_per_node, dt / CALLS * 1e6))
