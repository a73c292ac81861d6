"""Starting a node process off the event loop: `spawn` forks and execs in a small thread pool
and gives back a `NodeProcess`, the part of asyncio.subprocess.Process an Instance uses (pid,
returncode, stdout/stderr StreamReaders, wait()).

Why not asyncio.create_subprocess_exec: it forks in the event loop's thread and then waits
there until the child has exec'd (the child first runs the rlimit function, then bwrap or
luajit is loaded), about 10 ms a node on this project's machines, during which no heartbeat,
log batch or command is served and no other node starts: a START of 500 nodes held a daemon
for 5 to 10 s. In SPAWN_THREADS threads the waits for exec overlap (the fork itself holds the
interpreter lock, briefly). The exit is awaited on a pidfd (Linux >= 5.3) in the event loop,
not by a thread per child as asyncio's default child watcher does (1,000 nodes: 1,000 threads).
"""
from __future__ import annotations

import asyncio
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

SPAWN_THREADS = 4
STREAM_LIMIT = 2 ** 16  # asyncio's default StreamReader limit
_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=SPAWN_THREADS, thread_name_prefix="spawn")
    return _pool


class NodeProcess:
    def __init__(self, popen: subprocess.Popen, stdout: asyncio.StreamReader,
                 stderr: asyncio.StreamReader) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.stdout = stdout
        self.stderr = stderr
        self.returncode: int | None = None
        self._exited: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._watch()

    def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            fd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):  # no pidfd here: one thread blocked in waitpid
            fut = loop.run_in_executor(None, os.waitpid, self.pid, 0)
            fut.add_done_callback(lambda f: self._reaped(f.result()[1]))
            return

        def on_exit() -> None:
            loop.remove_reader(fd)
            os.close(fd)
            try:
                _, status = os.waitpid(self.pid, 0)
            except ChildProcessError:  # reaped elsewhere (never expected): unknown status
                status = 255 << 8
            self._reaped(status)

        loop.add_reader(fd, on_exit)

    def _reaped(self, status: int) -> None:
        self.returncode = os.waitstatus_to_exitcode(status)
        self.popen.returncode = self.returncode  # so Popen never waits for it again
        if not self._exited.done():
            self._exited.set_result(self.returncode)

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)


async def _reader(pipe) -> asyncio.StreamReader:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=STREAM_LIMIT, loop=loop)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe)
    return reader


async def spawn(argv: list[str], cwd: Path, env: dict[str, str] | None,
                preexec: Callable[[], None]) -> NodeProcess:
    """Start `argv` in its own session, stdin /dev/null, stdout and stderr piped, no inherited
    descriptors, `preexec` run in the child before exec (rlimits). Raises OSError/ValueError."""
    loop = asyncio.get_running_loop()
    popen = await loop.run_in_executor(_executor(), lambda: subprocess.Popen(
        argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True, close_fds=True, env=env, preexec_fn=preexec))
    try:
        stdout = await _reader(popen.stdout)
        stderr = await _reader(popen.stderr)
    except BaseException:
        popen.kill()
        raise
    return NodeProcess(popen, stdout, stderr)
