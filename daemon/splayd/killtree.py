"""Killing a node that runs under bubblewrap, including one still being set up.

A node's process is the outer bwrap, in a session of its own. It clones the sandbox's first
process (pid 1 of a new PID namespace), which calls setsid (`--new-session`) and only then
asks the kernel to kill it when the outer bwrap dies (`--die-with-parent`). A SIGKILL of the
outer bwrap's process group that lands in that window, as a `stop` sent right after `start`
does, misses the sandbox: it runs on, reparented to init, its working directory deleted.

So the outer bwrap is stopped first (SIGSTOP: it clones nothing more), its children read
while it is stopped, each child killed (the death of a PID namespace's pid 1 ends every
process in the namespace), and then the outer bwrap's group.
"""
from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

from .hostfs import descendants

STOP_WAIT = 1.0  # seconds to wait for the outer bwrap to stop before killing without it
STOP_POLL = 0.002


def children(pid: int) -> list[int]:
    """Direct children of `pid` (its threads' /proc children lists; /proc's parent links
    where the kernel has no such list)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    out: list[int] = []
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
        except FileNotFoundError:  # kernel without CONFIG_PROC_CHILDREN
            return [p for p in descendants(pid) if _ppid(p) == pid]
        except OSError:
            continue
    return out


def _ppid(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return 0
    return int(stat[stat.rindex(b")") + 2:].split()[1])


def _state(pid: int) -> str:
    """/proc's one-letter state, "" once gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return ""
    return stat[stat.rindex(b")") + 2:stat.rindex(b")") + 3].decode()


def _kill_all(pid: int) -> None:
    for child in children(pid):
        try:
            os.kill(child, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def kill_bwrap(proc: Any) -> None:
    """SIGKILL the outer bwrap `proc` (spawn.NodeProcess, a child of this process) and its
    sandbox, even mid-setup. Signals go only while it is not reaped (returncode None): until
    then its pid cannot be reused."""
    pid = proc.pid
    if proc.returncode is not None:
        return
    try:
        os.kill(pid, signal.SIGSTOP)
    except ProcessLookupError:
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STOP_WAIT
    while _state(pid) not in ("T", "t", "Z", "X", "") and loop.time() < deadline:
        await asyncio.sleep(STOP_POLL)
    if proc.returncode is None:
        _kill_all(pid)


def kill_bwrap_now(pid: int) -> None:
    """The same without waiting for the stop (the daemon's task is being cancelled)."""
    try:
        os.kill(pid, signal.SIGSTOP)
    except ProcessLookupError:
        return
    _kill_all(pid)
