--[[
BEGIN SPLAY RESOURCES RESERVATION
nb_splayds 8
list_type random
list_size 4
END SPLAY RESOURCES RESERVATION
]]
-- Cyclon whose peers are told apart by IP alone, written the way SPLAY's applications/cyclon.lua
-- is (globals, job.nodes as the first view, rpc.a_call, misc.dup / misc.random_pick): an entry
-- is "me" or "known already" by its ip. It works only where every node has an address of its
-- own (docs/decisions.md, "One address per node"); with one address for all, every entry looks
-- like this node and the view empties.
require "splay.base"
rpc = require "splay.rpc"

me = job.me
cache_size = 6
shuffle_length = 3
neighbors = {}
exchanges = 0

for _, n in pairs(job.nodes) do
  if n.ip ~= me.ip then neighbors[#neighbors + 1] = { ip = n.ip, port = n.port, age = 0 } end
end

function known(ip)
  for i, n in pairs(neighbors) do
    if n.ip == ip then return i end
  end
  return nil
end

-- Keep what is new (not us, not in the view: by ip), in empty slots first, then in the slots of
-- the entries sent away.
function insert(received, sent)
  for i = #received, 1, -1 do
    if received[i].ip == me.ip or known(received[i].ip) then table.remove(received, i) end
  end
  while #neighbors < cache_size and #received > 0 do
    neighbors[#neighbors + 1] = table.remove(received)
  end
  while #received > 0 and #sent > 0 do
    local i = known(table.remove(sent).ip)
    if i then neighbors[i] = table.remove(received) end
  end
end

function shuffle()
  if #neighbors == 0 then return end
  for _, n in pairs(neighbors) do n.age = n.age + 1 end
  table.sort(neighbors, function(a, b) return a.age > b.age end)
  local others = misc.dup(neighbors)
  local oldest = table.remove(others, 1)
  local sent = misc.random_pick(others, shuffle_length - 1)
  local set = misc.dup(sent)
  set[#set + 1] = { ip = me.ip, port = me.port, age = 0 }
  sent[#sent + 1] = oldest            -- the oldest's slot goes to what it answers
  local ok, r = rpc.a_call(oldest, { "receive_set", set }, 5)
  if ok then
    insert(r[1], sent)
    exchanges = exchanges + 1
  else
    log.error("ERROR receiving from " .. oldest.ip .. ":" .. oldest.port .. " : " .. tostring(r))
  end
end

function receive_set(received)
  local set = misc.random_pick(neighbors, shuffle_length)
  local reply = misc.dup(set)
  insert(received, set)
  return reply
end

function view_log()
  local ips = {}
  for _, n in pairs(neighbors) do ips[#ips + 1] = n.ip end
  table.sort(ips)
  log.print("view me=" .. me.ip .. " exchanges=" .. exchanges .. " ips=" .. table.concat(ips, ","))
end

events.thread(function()
  if not rpc.server(me.port) then
    log.error("Bind error: " .. me.port)
    return
  end
  events.sleep(3)   -- the others start their servers
  events.periodic(1, shuffle)
  events.periodic(2, view_log)
end)

events.run()
