--[[
BEGIN SPLAY RESOURCES RESERVATION
nb_splayds 20
list_type head
list_size 0
END SPLAY RESOURCES RESERVATION
]]
-- Cyclon (Voulgaris et al., 2005), written like SPLAY's cyclon.lua: a view of c peers with
-- ages; every period the node shuffles l entries with its oldest neighbour (rpc.a_call).
-- Each node starts knowing only its next two nodes; the views fill up to c.
require "splay.base"
rpc = require "splay.rpc"
local metrics = require "splay.metrics"

c = 8                 -- view size
l = 4                 -- shuffle length
period = 0.5          -- seconds between active rounds
me = { ip = job.me.ip, port = job.me.port, pos = job.position }
view = {}             -- list of {peer = {ip, port, pos}, age = n}
running = true

local function same(a, b) return a.ip == b.ip and a.port == b.port end

local function index_of(peer)
  for i, e in ipairs(view) do if same(e.peer, peer) then return i end end
  return nil
end

local function random_entries(n)
  local picked = {}
  for _, e in ipairs(misc.random_pick(view, n)) do picked[#picked + 1] = { peer = e.peer, age = e.age } end
  return picked
end

-- Keep received entries: first in empty slots, then in place of entries we sent.
local function merge(received, sent)
  for _, e in ipairs(received) do
    if not same(e.peer, me) and not index_of(e.peer) then
      if #view < c then
        view[#view + 1] = { peer = e.peer, age = e.age }
      else
        for _, s in ipairs(sent) do
          local i = not same(s.peer, me) and index_of(s.peer)
          if i then view[i] = { peer = e.peer, age = e.age }; break end
        end
      end
    end
  end
end

function cyclon_exchange(received)          -- passive thread (called by rpc)
  local reply = random_entries(l)
  merge(received, reply)
  return reply
end

local function active()
  if not running or #view == 0 then return end
  for _, e in ipairs(view) do e.age = e.age + 1 end
  local oldest = 1
  for i, e in ipairs(view) do if e.age > view[oldest].age then oldest = i end end
  local q = table.remove(view, oldest)
  local subset = random_entries(l - 1)
  subset[#subset + 1] = { peer = me, age = 0 }
  local ok, r = rpc.a_call(q.peer, { "cyclon_exchange", subset }, 2)
  if ok then
    merge(r[1], subset)
    if #view < c and not index_of(q.peer) then view[#view + 1] = { peer = q.peer, age = 0 } end
    metrics.count("cyclon_exchange")
  else
    log.write("exchange with " .. q.peer.pos .. " failed: " .. tostring(r), 3)
  end
end

for k = 1, 2 do
  local i = (job.position - 1 + k) % #job.nodes + 1
  local n = job.nodes[i]
  view[#view + 1] = { peer = { ip = n.ip, port = n.port, pos = i }, age = 0 }
end

rpc.server(job.me.port)
events.periodic(period, active)
events.thread(function()
  events.sleep(20)
  running = false
  events.sleep(1.5)
  local positions = {}
  for _, e in ipairs(view) do positions[#positions + 1] = e.peer.pos end
  table.sort(positions)
  log.info(string.format("view size=%d c=%d positions=%s", #view, c, table.concat(positions, ",")))
  events.sleep(1)
  events.exit()
end)
events.loop()
