"""The simulator's mapped file (progress counters and the spin check's cells) and the spin check's
watchdog, both on this side of sim.lua, on this process's own clock (docs/simulation.md
"Determinism" and "Limits"). Standard library only; used by simulate.py.

sim.lua stores, never reading a clock: cells 0-3 every 1024 events (virtual time, events, nodes
started, events again), cells 4-6 at each resume of a node (the node, a resume counter, the
virtual time; cell 4 back to 0 when it yields). The watchdog here reads them with the CPU time
of sim.lua's process (/proc); one resume that lasts more than spin_limit CPU seconds gets cells
7-9 (that resume, its node, its virtual time) and a SIGPROF, which sim.lua's jit.profile callback
answers with the fatal record (the line included) and exit 5: no count hook and no clock read
inside the run, and a spin that never returns to the interpreter is still stopped (killed).
"""
from __future__ import annotations

import mmap
import os
import signal
import struct
import time
from dataclasses import dataclass
from pathlib import Path

EXIT_SPIN = 5
SIGNAL_GRACE = 3.0   # wall s sim.lua has to answer the signal before it is killed (a loop inside C)


@dataclass
class Progress:
    virtual_t: float
    events: int
    events_per_s: float
    nodes_started: int
    peak_rss_kb: int = 0    # at the end only: the simulator's peak resident memory


def spin_text(k: int, spin_limit: float, vt: float, where: str = "") -> str:
    """The fatal record's words, as sim.lua writes them (%g and %.3f as C's)."""
    return (f"simulation stopped: node {k} computed for more than {'%g' % spin_limit} s of CPU without "
            f"waiting, at virtual time {'%.3f' % vt} s{where} - an endless loop in a handler?")


class ProgressFile:
    """The mapped file: ten doubles (see the module's comment); sim.lua writes every cell but 7-9."""
    CELLS = struct.Struct("=10d")
    PROGRESS = struct.Struct("=4d")
    RESUME = struct.Struct("=3d")        # cells 4-6
    STOP = struct.Struct("=3d")          # cells 7-9

    def __init__(self, path: Path, started: float) -> None:
        with open(path, "r+b") as f:
            self.cells = mmap.mmap(f.fileno(), self.CELLS.size, access=mmap.ACCESS_WRITE)
        self.last_t, self.last_events, self.next_t = started, 0.0, started + 1.0

    def timeout(self) -> float:
        """Seconds until the next reading is due (at most 1)."""
        return min(1.0, max(0.0, self.next_t - time.monotonic()))

    def poll(self) -> Progress | None:
        """A Progress when one is due and events were processed since the last one."""
        t = time.monotonic()
        if t < self.next_t:
            return None
        self.next_t = t + 1.0
        for _ in range(3):   # sim.lua writes while this reads: two counts that differ caught it halfway
            vt, events, nodes, check = self.PROGRESS.unpack_from(self.cells)
            if events == check:
                break
        else:
            return None
        if events <= self.last_events:
            return None
        rate = (events - self.last_events) / max(t - self.last_t, 1e-6)
        self.last_t, self.last_events = t, events
        return Progress(vt, int(events), rate, int(nodes))

    def resume(self) -> tuple[int, float, float]:
        """(node being resumed or 0, resume counter, its virtual time)."""
        k, n, vt = self.RESUME.unpack_from(self.cells, 32)
        return int(k), n, vt

    def ask_stop(self, n: float, k: int, vt: float) -> None:
        self.STOP.pack_into(self.cells, 56, n, float(k), vt)

    def close(self) -> None:
        self.cells.close()


def _descendants_luajit(root: int) -> int | None:
    """The pid of the luajit process under `root` (setarch and bubblewrap sit between: bwrap
    starts its own session, so the process tree, not the session, finds it)."""
    parent, comm = {}, {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        close = stat.rfind(b")")
        comm[int(name)] = stat[stat.find(b"(") + 1:close]
        parent[int(name)] = int(stat[close + 2:].split()[1])
    for pid in sorted(comm):
        p, seen = pid, 0
        while p in parent and p != root and seen < 64:
            p, seen = parent[p], seen + 1
        if p == root and comm[pid] == b"luajit":
            return pid
    return None


def cpu_seconds(pid: int) -> float | None:
    """user + system CPU seconds of one process (/proc/PID/stat), None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class SpinWatch:
    """One resume of a node computing for more than spin_limit CPU s of sim.lua stops the run:
    cells 7-9 name it, SIGPROF asks sim.lua to write the fatal record (with the line of app.lua
    it is at) and exit 5; past SIGNAL_GRACE the process is killed and the record written here,
    without the line (records sim.lua had buffered are then lost)."""

    def __init__(self, cells: ProgressFile, root_pid: int, spin_limit: float) -> None:
        self.cells, self.root_pid, self.limit = cells, root_pid, spin_limit
        self.pid: int | None = None
        self.seen = (0, -1.0, 0.0)     # the resume last seen: node, counter, virtual time
        self.seen_cpu = 0.0            # sim.lua's CPU time when it was first seen
        self.next_t = 0.0
        self.signalled_at: float | None = None

    def timeout(self) -> float:
        return max(0.0, self.next_t - time.monotonic())

    def check(self) -> bool:
        """Due checks; True when the process must be killed (it did not answer the signal)."""
        now = time.monotonic()
        if now < self.next_t:
            return False
        if self.signalled_at is not None:
            self.next_t = now + 0.1
            return now - self.signalled_at > SIGNAL_GRACE
        self.next_t = now + 1.0
        if self.pid is None:
            self.pid = _descendants_luajit(self.root_pid)
            if self.pid is None:
                return False
        k, n, vt = self.cells.resume()
        cpu = cpu_seconds(self.pid)
        if cpu is None:
            return False
        if k == 0 or n != self.seen[1]:
            self.seen, self.seen_cpu = (k, n, vt), cpu
            return False
        spent = cpu - self.seen_cpu
        if spent <= self.limit:
            # look again when the limit would be passed (CPU can pass no faster than wall time)
            self.next_t = now + min(1.0, max(0.05, self.limit - spent))
            return False
        self.cells.ask_stop(n, k, vt)
        self.signalled_at, self.next_t = now, now + 0.1
        try:
            os.kill(self.pid, signal.SIGPROF)
        except OSError:
            pass
        return False

    def kill(self) -> None:
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass

    def record(self) -> tuple[int, float, str]:
        """The fatal record (node, virtual time, text) when sim.lua was killed without writing it."""
        k, _, vt = self.seen
        return k, vt, spin_text(k, self.limit, vt)
