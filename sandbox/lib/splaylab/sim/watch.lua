--[[
splaylab.sim.watch - the checks that stop a simulation, on the simulator's side (sim.lua): the
file of cells it shares with the runner's watchdog (sandbox/sim_watch.py), the spin check's
answer to the watchdog's signal, and the bound on a node's runs within one virtual second
(docs/simulation.md, "Limits"). Nothing here reads a clock: the run takes the same path
whatever the machine's load (docs/simulation.md, "Determinism").

Usage (sim.lua):
  local watch = require "splaylab.sim.watch"
  local w = watch.new{ progress = path | nil, spin_limit = 10, fatal = function(k, text, code, t) end }
  kernel = kernel_lib.new{ ..., before_resume = function(node) ... w.resumed(kernel, node) end,
                                after_resume = function() ... w.paused() end }
  w.tick(kernel)   -- progress, every 1024 events
  w.start()        -- the spin check's profiler (not under luajit -jp)

The cells (an 80-byte file, ten doubles): 0-3 every 1024 events (virtual time, events, nodes
started, events again, written last: a reader that sees both equal read one tick); 4-6 at each
resume of a node (the node, 0 between resumes; a resume counter; the virtual time); 7-9 the
watchdog's (the resume to stop, its node, its virtual time). Without a file (sim.lua run by
hand) the same stores go to memory of our own.
]]
local ffi = require "ffi"
local profile = require "jit.profile"

local M = { _NAME = "splaylab.sim.watch", _VERSION = "0.1" }

local format = string.format
local EXIT_SPIN = 5

ffi.cdef [[
  int open(const char *path, int flags);
  int close(int fd);
  void *mmap(void *addr, size_t length, int prot, int flags, int fd, long offset);
]]

-- Progress: doubles in a file the runner reads on its own wall clock; nothing here looks
-- at a clock to decide when. A report once a second of wall time took a branch at moments set
-- by the machine's load, with a clock read in compiled code, and loaded reruns differed.
local O_RDWR, PROT_READ_WRITE, MAP_SHARED = 2, 3, 1
local function progress_cells(path)
  if type(path) == "string" then
    local fd = ffi.C.open(path, O_RDWR)
    if fd >= 0 then
      local p = ffi.C.mmap(nil, 80, PROT_READ_WRITE, MAP_SHARED, fd, 0)
      ffi.C.close(fd)
      if ffi.cast("intptr_t", p) ~= -1 then return ffi.cast("double *", p) end
    end
    io.stderr:write("sim.lua: cannot map the progress file ", path, ": no progress reports\n")
  end
  return ffi.new("double[10]")
end

-- STILL TIME: a node that runs STILL_RUNS times within one second of virtual time is in a loop
-- of events that take no (or almost no) virtual time: two nodes calling each other where the
-- network has no delay, or sleeps of a nanosecond. Each run is short, so the spin check never
-- sees it, and the run would never reach its end. No real node runs a million times a second
-- (a wake-up costs microseconds), so no run that could happen live is stopped. Counted, not
-- timed: deterministic, a few instructions a run. A legitimate burst runs a node about once
-- per message the others send it then (a joining crowd at its bootstrap node): the bound grows
-- with the nodes started.
M.STILL_RUNS = 1000000

-- SPIN CHECK: a node that computes for more than spin_limit CPU seconds without waiting stops
-- the run. Each resume stores the node, a resume counter and the virtual time in cells 4-6; the
-- runner's watchdog reads them with this process's CPU time and, when one resume lasts too long,
-- names it in cells 7-9 and sends SIGPROF. LuaJIT's profiler, started with a timer that never
-- fires (~23 days), turns that signal into a call of on_spin at the next interpreted
-- instruction, in the spinning node's thread: it writes the fatal record (app.lua's line when the
-- node is there), flushes every record and exits 5. Until that signal nothing runs differently:
-- no count hook (which put the whole interpreter in its instrumented dispatch), no clock read
-- (a suspect of rare diverging reruns), no check in compiled traces. A spin that never comes
-- back to the interpreter (inside one C call, or a compiled loop of the runtime) is killed by
-- the watchdog, which then writes the record itself without the line, and records still
-- buffered by sim.lua are lost (at most 255). Without the runner (sim.lua started by hand)
-- nobody watches; under `luajit -jp` the profiler is jit.p's and there is no spin check either.
local SPIN_TIMER = "i2000000000"   -- a timer of 2e9 ms: only the watchdog signals

function M.new(opts)
  local cells = progress_cells(opts.progress)
  local spin_limit, fatal = tonumber(opts.spin_limit) or 10, opts.fatal
  local resumes = 0
  local w = { cells = cells }

  function w.tick(k)
    cells[0] = k.now
    cells[1] = k.events
    cells[2] = k.started
    cells[3] = k.events
  end

  local function still_time(kernel, node)
    local limit = M.STILL_RUNS
    if kernel.started * 100 > limit then limit = kernel.started * 100 end
    if node.still_runs < limit then return end
    local when = node.still_at == kernel.now and format("at virtual time %.3f s", kernel.now)
      or format("between virtual times %.3f s and %.3f s", node.still_at, kernel.now)
    fatal(node.k, format("simulation stopped: node %d ran %d times %s, more than any real node "
      .. "could (events that take no virtual time, in a loop? messages on a network without "
      .. "delay, or sleeps of almost 0 s: wait longer between them, or give the network a delay "
      .. "with --net)", node.k, node.still_runs, when), EXIT_SPIN, kernel.now)
  end

  function w.resumed(kernel, node)
    resumes = resumes + 1
    local now = kernel.now
    local since = node.still_at
    if since and now - since < 1 then
      local n = node.still_runs + 1
      node.still_runs = n
      if n >= M.STILL_RUNS then still_time(kernel, node) end
    else
      node.still_at, node.still_runs = now, 1
    end
    cells[6] = now
    cells[4] = node.k
    cells[5] = resumes
  end

  function w.paused() cells[4] = 0 end

  local function on_spin(thread)
    local wanted, k, t = cells[7], cells[8], cells[9]
    if wanted == 0 then return end   -- a SIGPROF that is not the watchdog's: ignored
    local where = ""
    if wanted == resumes and cells[4] == k then   -- still in that resume: where it is
      local line = profile.dumpstack(thread, "l", 1):match("^app%.lua:(%d+)")
      if line then where = " (at app.lua:" .. line .. ")" end
    end
    fatal(k, format("simulation stopped: node %d computed for more than %g s of CPU without "
      .. "waiting, at virtual time %.3f s%s - an endless loop in a handler?", k, spin_limit, t, where),
      EXIT_SPIN, t)
  end

  function w.start()
    if not package.loaded["jit.p"] then profile.start(SPIN_TIMER, on_spin) end
  end

  return w
end

return M
