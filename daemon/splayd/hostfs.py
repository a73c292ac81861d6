"""What the daemon reads of the host about its nodes, never following a link the node could
plant: a working directory's size and entries (the disk quota), a process's descendants (a
graceful leave under bubblewrap).
"""
from __future__ import annotations

import os
from pathlib import Path

MAX_DEPTH = 100  # directory nesting the disk check follows
DAEMON_FILES = frozenset({"app.lua", "job.json", "go"})  # written by the daemon: not counted


def measure_dir(root: Path, max_entries: int | None = None) -> tuple[int, int, bool]:
    """(bytes, entries, too_deep) under `root`, never following a symbolic link.

    Directories are opened with O_NOFOLLOW relative to their parent's descriptor, so a
    node swapping a directory for a link between two steps cannot send the walk outside.
    Every entry counts (files, directories, links) except the daemon's own files at the top;
    a regular file counts max(size, allocated blocks). Stops early past `max_entries`.
    """
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    total = entries = 0
    try:
        top = os.open(root, flags)
    except OSError:
        return 0, 0, False
    stack: list[tuple[int, int]] = [(top, 0)]  # (fd, depth)
    too_deep = False
    try:
        while stack:
            fd, depth = stack.pop()
            try:
                subdirs: list[str] = []
                with os.scandir(fd) as it:
                    for entry in it:
                        if depth == 0 and entry.name in DAEMON_FILES:
                            continue
                        entries += 1
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        if entry.is_dir(follow_symlinks=False):
                            subdirs.append(entry.name)
                        elif entry.is_file(follow_symlinks=False):
                            total += max(st.st_size, st.st_blocks * 512)
                        if max_entries is not None and entries > max_entries:
                            return total, entries, too_deep
                for name in subdirs:
                    if depth + 1 > MAX_DEPTH:
                        too_deep = True
                        continue
                    try:
                        stack.append((os.open(name, flags, dir_fd=fd), depth + 1))
                    except OSError:
                        continue
            finally:
                os.close(fd)
    finally:
        for fd, _ in stack:
            os.close(fd)
    return total, entries, too_deep


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid` (from /proc's parent links), children first."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])  # the field after the state
        children.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    todo = list(children.get(pid, []))
    while todo:
        p = todo.pop(0)
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""
