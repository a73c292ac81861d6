-- Buggy variant (shuffles with a random neighbour instead of the oldest): the tests expect the checks named in tests/grading.
-- Cyclon (Voulgaris, Gavidia, van Steen, 2005): the reference solution. Instructors only.
require "splay.base"
rpc = require "splay.rpc"

C = 10                 -- view size (the paper's c)
L = 5                  -- shuffle length (the paper's l)
PERIOD = 5             -- seconds between two shuffles of a node
TIMEOUT = 2            -- seconds a shuffle waits for the answer

me = { ip = job.me.ip, port = job.me.port }
view = {}              -- at most C entries {peer = {ip =, port =}, age = n}

local function same(a, b) return a.ip == b.ip and a.port == b.port end

-- The index in view of the entry for peer, or nil.
function index_of(peer)
  for i, e in ipairs(view) do
    if same(e.peer, peer) then return i end
  end
  return nil
end

-- Copies of n distinct random entries of view (fewer when the view is smaller), never peer `except`.
function random_entries(n, except)
  local pool = {}
  for _, e in ipairs(view) do
    if not (except and same(e.peer, except)) then pool[#pool + 1] = e end
  end
  local picked = {}
  for _, e in ipairs(misc.random_pick(pool, n)) do picked[#picked + 1] = { peer = e.peer, age = e.age } end
  return picked
end

-- The index of the oldest entry of view.
function oldest()
  local o = 1
  for i, e in ipairs(view) do
    if e.age > view[o].age then o = i end
  end
  return o
end

-- Keep the received entries: never ourselves nor a peer already in the view; first in empty
-- slots, then in place of the entries we sent (those still in the view).
function merge(received, sent)
  for _, e in ipairs(received) do
    if not same(e.peer, me) and not index_of(e.peer) then
      local entry = { peer = { ip = e.peer.ip, port = e.peer.port }, age = e.age }
      if #view < C then
        view[#view + 1] = entry
      else
        for _, s in ipairs(sent) do
          local i = index_of(s.peer)
          if i then view[i] = entry; break end
        end
      end
    end
  end
end

-- The active side, every PERIOD: shuffle with the oldest neighbour Q.
function shuffle()
  if #view == 0 then return end
  for _, e in ipairs(view) do e.age = e.age + 1 end
  local q = view[math.random(#view)].peer   -- BUG: a random neighbour, not the oldest
  local sent = random_entries(L - 1, q)
  sent[#sent + 1] = { peer = me, age = 0 }
  local ok, r = rpc.acall(q, { "on_shuffle", sent }, TIMEOUT)
  local i = index_of(q)              -- Q leaves the view, whether it answered or not
  if i then table.remove(view, i) end
  if ok and type(r[1]) == "table" then merge(r[1], sent) end
end

-- The passive side (called by rpc): answer L random entries, then keep what P sent.
function on_shuffle(received)
  local reply = random_entries(L)
  merge(received, reply)
  return reply
end

-- Initialisation: given, keep it. The first three nodes of the job are the introducers: every
-- node starts knowing them (not itself), with age 0.
for i = 1, math.min(3, #job.nodes) do
  local n = job.nodes[i]
  if not same(n, me) then view[#view + 1] = { peer = { ip = n.ip, port = n.port }, age = 0 } end
end
rpc.server(me.port)
events.thread(function()
  events.sleep(math.random() * PERIOD)          -- nodes do not shuffle in step
  events.periodic(PERIOD, shuffle)
end)
