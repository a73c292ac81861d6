-- Cyclon: gossip-based peer sampling (Voulgaris, Gavidia, van Steen, 2005). Read README.md first.
-- Fill in every TODO. The grader samples the global `view` every 10 s: keep its name and the
-- shape of its entries, {peer = {ip =, port =}, age = n}.
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

-- The index of the oldest entry of view (the one with the largest age).
function oldest()
  -- TODO
  return 1
end

-- Keep the received entries (a list of {peer, age}); `sent` is what we gave the other side.
function merge(received, sent)
  -- TODO: skip an entry for ourselves (me) and one whose peer is already in the view; put the
  -- others first in empty slots (while #view < C), then in place of entries we sent that are
  -- still in the view.
end

-- The active side, every PERIOD seconds.
function shuffle()
  if #view == 0 then return end
  -- TODO:
  -- 1. every entry of the view gets one year older (age + 1);
  -- 2. Q, the peer of the oldest entry, is the one we shuffle with;
  -- 3. send Q L - 1 random entries (not Q's) plus ourselves with age 0:
  --      local ok, r = rpc.acall(q, { "on_shuffle", sent }, TIMEOUT)
  --    (ok: Q answered, and r[1] is its list of entries);
  -- 4. Q leaves the view, whether it answered or not;
  -- 5. when Q answered, merge its entries.
end

-- The passive side, called by Q's neighbour P through rpc: answer L random entries, and keep
-- what P sent.
function on_shuffle(received)
  -- TODO
  return {}
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
