"""CPU seconds by kind of process over a phase of a benchmark, read from /proc.

    with ProcCPU() as cpu:
        ...                      # the phase
    print(cpu.report())

A thread reads every process's utime + stime every 0.25 s. A process alive when the phase starts
counts from that reading; one that starts during the phase counts from zero (a grading's
sim.lua lives about a second), up to its last reading, so a process that lives under 0.25 s
and ends between two readings is missed (the report says how many processes it saw). Kinds
come from the command line (KINDS below: the service's processes); the rest are named by
their program. Linux only: this is for bench/, not for the service.
"""
from __future__ import annotations

import os
import threading
from collections import defaultdict
from pathlib import Path

HZ = os.sysconf("SC_CLK_TCK")

# (a fragment of the command line, the kind), first match wins
KINDS = (
    ("sim.lua", "simulator (sim.lua)"),
    ("luajit", "LuaJIT (nodes, other)"),
    ("-Q simulations", "Celery, simulation worker"),
    (" beat ", "Celery beat"),
    ("celery", "Celery, default worker"),
    ("uvicorn", "web (uvicorn)"),
    ("multiprocessing.spawn", "web (uvicorn)"),   # its workers: multiprocessing children
    ("postgres", "PostgreSQL"),
    ("redis-server", "Redis"),
    ("splayd.relay", "relay"),
    ("splayd", "daemons (splayd)"),
    ("bench/", "the benchmark itself (its clients)"),
)


def kind_of(cmdline: str) -> str:
    for fragment, kind in KINDS:
        if fragment in cmdline:
            return kind
    if not cmdline:
        return "kernel threads"
    return Path(cmdline.split(" ", 1)[0]).name


def _ticks(pid: str) -> int | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return int(fields[11]) + int(fields[12])   # utime, stime (fields 14 and 15 of stat)
    except (OSError, IndexError, ValueError):
        return None


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


class ProcCPU:
    def __init__(self, every_s: float = 0.25) -> None:
        self.every_s = every_s
        self._procs: dict[str, list] = {}   # pid -> [kind, ticks at start, last ticks]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _read(self, first: bool) -> None:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            ticks = _ticks(pid)
            if ticks is None:
                continue
            p = self._procs.get(pid)
            if p is None:
                self._procs[pid] = [kind_of(_cmdline(pid)), ticks if first else 0, ticks]
            else:
                p[2] = ticks

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self._read(first=False)

    def __enter__(self) -> "ProcCPU":
        self._read(first=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._read(first=False)

    def by_kind(self) -> dict[str, float]:
        out: dict[str, float] = defaultdict(float)
        for kind, start, last in self._procs.values():
            out[kind] += (last - start) / HZ
        return dict(out)

    def report(self, min_s: float = 0.1) -> str:
        kinds = sorted(self.by_kind().items(), key=lambda kv: -kv[1])
        total = sum(s for _, s in kinds)
        lines = [f"  CPU by process, {total:.1f} CPU-s in all ({len(self._procs)} processes seen):"]
        lines += [f"    {s:7.1f} CPU-s  {kind}" for kind, s in kinds if s >= min_s]
        return "\n".join(lines)
