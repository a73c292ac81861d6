-- Buggy variant (views drawn at random from job.nodes once, never shuffled): the tests expect the checks named in tests/grading.
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
  -- BUG: never shuffles: the random views above are supposed to be good enough
end

-- The passive side (called by rpc): answer L random entries, then keep what P sent.
function on_shuffle(received)
  local reply = random_entries(L)
  merge(received, reply)
  return reply
end

-- Initialisation: given, keep it. The first three nodes of the job are the introducers: every
-- node starts knowing them (not itself), with age 0.
for _, n in ipairs(misc.random_pick(job.nodes, C + 1)) do   -- BUG: the view is drawn once, at random
  if not same(n, me) and #view < C then view[#view + 1] = { peer = { ip = n.ip, port = n.port }, age = 0 } end
end
rpc.server(me.port)
events.thread(function()
  events.sleep(math.random() * PERIOD)          -- nodes do not shuffle in step
  events.periodic(PERIOD, shuffle)
end)
