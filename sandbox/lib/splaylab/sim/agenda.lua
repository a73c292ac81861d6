--[[
splaylab.sim.agenda - the simulator's event queue, as methods of the kernel (splaylab.sim.kernel):
a heap of entries ordered by (virtual time, sequence number), a FIFO beside it for the events
posted at the current instant, and the threads' deadlines past a horizon kept out of the heap.
Whatever holds an event, the kernel takes them in exactly (t, seq) order
(spec/sim_kernel_order_spec.lua checks it against a model).

Usage (kernel.lua): agenda.install(Kernel); fields of a new kernel: agenda.fields(kernel)
  kernel:_post(t, fn, node, token, arg)   an event (no node: a timed action, fn(arg); node: it resumes)
  kernel:_deadline(node, t)               a node's coroutine wakes at t (its one entry)
  kernel:_timer(e, t, seq), kernel:_untimer(e)   a thread's deadline entry, armed / cancelled
  kernel:_advance(next_t)                 the horizon moves (the run loop, when it is reached)
  kernel:_pop()                           the heap's least entry
  kernel:_spent(e)                        a popped entry that was dispatched: _post may reuse it
]]
local heap = require "splaylab.heap"

local M = { _NAME = "splaylab.sim.agenda", _VERSION = "0.1" }

local Kernel = {}

-- entries: {t, seq, pos, fn, node, token | rec, rec's token, posted}: fn alone (a timed action),
-- node and its token (its coroutine resumes), or fn, node and a thread (its events module's
-- run_ready or run_deadline, the thread's record and token). `posted`: made by _post, held by
-- the heap alone (the deadlines' entries are their node's or thread's, reused in place).
function Kernel:_push(e) heap.push(self.heap, e) end
function Kernel:_pop() return heap.pop(self.heap) end

-- Most events are posted for the current instant (a thread made ready, a node woken): those
-- wait in a FIFO beside the heap, in parallel arrays (no table, no heap operation each). All
-- of the FIFO's events have one time (fifo_t) and come in posting order, so taking the
-- earlier of its head and the heap's top keeps the order (t, seq) exactly.
function Kernel:_post(t, fn, node, token, arg)
  local seq = self.seq + 1
  self.seq = seq
  local tail = self.fifo_tail
  if t == self.fifo_t or (tail < self.fifo_head and t == self.now) then
    tail = tail + 1
    self.fifo_tail, self.fifo_t = tail, t
    self.fifo_seq[tail], self.fifo_fn[tail], self.fifo_node[tail] = seq, fn or false, node or false
    self.fifo_token[tail], self.fifo_arg[tail] = token or false, arg or false
    return
  end
  -- A posted entry is garbage once dispatched (most are messages in flight: two per rpc call on
  -- a network model, a tenth of what a simulation allocated): the kernel hands it back
  -- (_spent) and the next post takes it.
  local n = self.spent_n
  if n > 0 then
    local e = self.spent[n]
    self.spent[n], self.spent_n = nil, n - 1
    e[1], e[2], e[4], e[5], e[6], e[7] = t, seq, fn, node, token, arg
    return self:_push(e)
  end
  self:_push({ t, seq, false, fn, node, token, arg, true })
end

local MAX_SPENT = 4096   -- entries kept for reuse (more in flight at once are made anew)
function Kernel:_spent(e)
  local n = self.spent_n
  if e[8] and n < MAX_SPENT then
    e[4], e[5], e[6], e[7] = nil, nil, nil, nil   -- (what it carried is not kept alive)
    n = n + 1
    self.spent[n], self.spent_n = e, n
  end
end

-- A node's deadline: the entry its last deadline used moves to (t, the next sequence number)
-- when it is still queued (made stale by an earlier wake-up), instead of a new entry: the
-- stale one would be popped and dropped later (460 k of a 300-node Chord's 1.07 M events).
-- The live entries keep the order they would have had.
function Kernel:_deadline(node, t)
  local seq = self.seq + 1
  self.seq = seq
  local e = node.deadline
  if not e then
    e = { t, seq, false, nil, node, 0 }
    node.deadline = e
  end
  e[6] = node.token
  heap.move(self.heap, e, t, seq)
end

-- Threads' deadlines beyond the horizon wait in `far`, an unordered array (an entry's index
-- there is -e[3]): most of them are timeouts that are cancelled before they come (an rpc
-- call's, 60 s, answered in a fraction of a second), and putting them in and out of the heap
-- was its costliest work (a remove sifts down from the middle). Every event before the horizon
-- is in the heap or the FIFO; when the next of those reaches it, the horizon moves past it and
-- the far entries now before it join the heap (Kernel:_advance), so the order (t, seq) is
-- exactly the heap's alone.
function Kernel:_untimer(e)
  local i = e[3]
  if not i then return end
  if i > 0 then return heap.remove(self.heap, e) end
  local far, n, j = self.far, self.far_n, -i
  if j < n then
    local last = far[n]
    far[j], last[3] = last, i
  end
  far[n], self.far_n, e[3] = nil, n - 1, false
end

function Kernel:_timer(e, t, seq)
  local i = e[3]
  if i and i > 0 and self.heap[i] == e then return heap.move(self.heap, e, t, seq) end
  if i then self:_untimer(e) end
  -- (not at the current instant: the FIFO's events, at it, never pass a far entry)
  if t < self.horizon or t <= self.now then return heap.move(self.heap, e, t, seq) end
  e[1], e[2] = t, seq
  local n = self.far_n + 1
  self.far[n], self.far_n, e[3] = e, n, -n
end

-- The heap's next event is at `next_t` (nil: it is empty) and not before the horizon: the
-- horizon moves `span` past the earlier of it and the earliest far entry. A move scans the
-- whole array: the span doubles when the scan is longer than the run of events since the last
-- move, and halves when it is under an eighth of it (short, so that timeouts stay out of the
-- heap; long enough that the scans cost less than the events).
function Kernel:_advance(next_t)
  local since = self.events - self.advanced_at
  self.advanced_at = self.events
  local far, n = self.far, self.far_n
  for i = 1, n do
    local t = far[i][1]
    if not next_t or t < next_t then next_t = t end
  end
  local horizon = next_t + self.span
  local kept, q = 0, self.heap
  for i = 1, n do
    local e = far[i]
    far[i] = nil
    if e[1] < horizon then heap.push(q, e)
    else kept = kept + 1; far[kept], e[3] = e, -kept end
  end
  self.far_n, self.horizon = kept, horizon
  if n > since and self.span < 3600 then self.span = self.span * 2
  elseif n * 8 < since and self.span > 0.01 then self.span = self.span / 2 end
end


function M.fields(kernel)
  kernel.heap, kernel.seq = {}, 0
  kernel.fifo_head, kernel.fifo_tail, kernel.fifo_t = 1, 0, false
  kernel.fifo_seq, kernel.fifo_fn, kernel.fifo_node, kernel.fifo_token, kernel.fifo_arg = {}, {}, {}, {}, {}
  kernel.far, kernel.far_n, kernel.horizon, kernel.span, kernel.advanced_at = {}, 0, 1, 1, 0
  kernel.spent, kernel.spent_n = {}, 0
end

function M.install(class)
  for name, f in pairs(Kernel) do class[name] = f end
end

return M
