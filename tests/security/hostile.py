"""Run hostile programs through the daemon's own code path, without the web stack.

`HostDaemon` is a splayd JobManager (the code behind register/list/start, the 0.1 s tick,
the working directories and their cleanup) with a real Outbox, driven the way the
controller and the server loop drive it. `run()` deploys a program as one job and returns
each node's outcome: state, exit reason, exit code and the log lines the student sees.

`escaped=True` runs the program with plain `luajit app.lua` instead of the sandbox's
node.lua: the whole standard library (io.open, os.execute, ...), as if the Lua
environment had a hole. Those cases show what the OS layer alone (bubblewrap or the Docker
container + rlimits + the daemon's checks) still holds.

Backends: "bwrap" and "rlimits" (process backend) and "docker" (one container per job, the
engine started by scripts/start-dockerd.sh and the image built once per session:
`docker_image_tag()`).
"""
from __future__ import annotations

import asyncio
import functools
import inspect
import os
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

from splayd.config import DEFAULT_SANDBOX_DIR, Config, config_from_dict
from splayd.docker_image import IMAGE_LUAJIT
from splayd.isolation import Isolation
from splayd.jobs import JobManager
from splayd.outbox import Outbox, log_batches

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "sandbox") not in sys.path:
    sys.path.append(str(REPO / "sandbox"))
from node_address import node_ip  # noqa: E402  (sandbox/node_address.py: the controller's rule)

LUAJIT = shutil.which("luajit") or "luajit"
BWRAP = shutil.which("bwrap")
MB = 1024 * 1024
BACKENDS = ("bwrap", "rlimits", "docker")
ISOLATED = ("bwrap", "docker")  # the backends that hide the host (for the escaped programs)
DOCKER_DAEMON = f"sec-docker-{os.getpid()}"  # this run's containers (removed at the end)

# Prelude of escaped programs: `out(...)` writes a print record like the runtime does.
ESCAPED_PRELUDE = (
    "local function out(...) local t = {} for i = 1, select('#', ...) do "
    "t[i] = tostring((select(i, ...))) end io.write('print\\t', table.concat(t, '\\t'), '\\n') "
    "io.flush() end\n"
)


@dataclass
class Outcome:
    node: int
    state: str
    reason: str
    exit_code: int | None
    lines: list[tuple[str, str]] = field(default_factory=list)  # (level, text)

    @property
    def texts(self) -> list[str]:
        return [text for _, text in self.lines]


@functools.lru_cache(maxsize=None)
def docker_image_tag() -> str:
    """Start the engine when none answers (scripts/start-dockerd.sh) and build the sandbox
    image when absent; once per session."""
    import subprocess

    from splayd.docker_image import ensure_image

    proc = subprocess.run([str(REPO / "scripts" / "start-dockerd.sh")], capture_output=True, text=True,
                          timeout=150)
    assert proc.returncode == 0, f"scripts/start-dockerd.sh failed:\n{proc.stdout}\n{proc.stderr}"
    return ensure_image(DEFAULT_SANDBOX_DIR, luajit=LUAJIT)


def remove_docker_leftovers() -> list[str]:
    from splayd.docker_backend import remove_stale_containers

    return remove_stale_containers(DOCKER_DAEMON)


def isolation_for(backend: str) -> Isolation:
    if backend == "docker":
        return Isolation("docker", sandbox_dir=DEFAULT_SANDBOX_DIR.resolve(), luajit=LUAJIT,
                         image=docker_image_tag())
    if backend == "bwrap":
        assert BWRAP, "bwrap is required (Debian package bubblewrap, installed by scripts/install-deps.sh)"
        return Isolation("bwrap", BWRAP, DEFAULT_SANDBOX_DIR.resolve(), LUAJIT)
    return Isolation("rlimits")


class HostDaemon:
    def __init__(self, tmp_path: Path, backend: str = "bwrap", ports: tuple[int, int] = (27400, 27499),
                 **config: Any) -> None:
        data: dict[str, Any] = {
            "name": DOCKER_DAEMON if backend == "docker" else "sec-1", "controller": "ws://127.0.0.1:1/ws/daemon/", "key": "k",
            "max_instances": 8, "ports": list(ports), "max_mem_mb": 128, "max_cpu_seconds": 5,
            "work_dir": str(tmp_path / "work"),
        }
        data.update(config)
        self.config: Config = config_from_dict(data, base_dir=tmp_path, source="security.toml")
        self.config.work_dir.mkdir(parents=True, exist_ok=True)
        self.outbox = Outbox()
        self.backend = backend
        self.manager = JobManager(self.config, self.outbox, LUAJIT, isolation_for(backend))

    def job_dir(self, job: int) -> Path:
        return self.manager.job_dir(job)

    async def run(
        self,
        code: str,
        *,
        job: int = 1,
        nodes: int = 1,
        max_cpu: int = 5,
        max_mem: int = 128 * MB,
        duration: float = 10,
        limits: dict[str, Any] | None = None,
        list_type: str = "head",
        list_size: int = 0,
        escaped: bool = False,
        during: Callable[["HostDaemon"], Awaitable[None]] | None = None,
        timeout: float = 30,
    ) -> list[Outcome]:
        m = self.manager
        reply = await m.handle({"type": "register", "job": job, "count": nodes, "max_mem": max_mem,
                                "max_cpu": max_cpu, "duration": duration, "limits": limits or {}})
        assert reply["ok"], reply
        ports = reply["ports"]
        listing = {"type": "list", "job": job, "code": (ESCAPED_PRELUDE + code) if escaped else code,
                   "filename": "app.lua", "instances": [{"node": k + 1, "port": p} for k, p in enumerate(ports)],
                   "nodes": [{"ip": node_ip("127.0.0.1", p), "port": p} for p in ports],  # as the controller
                   "list_type": list_type, "list_size": list_size, "limits": limits or {}}
        assert (await m.handle(listing))["ok"]
        if escaped:
            luajit = IMAGE_LUAJIT if self.backend == "docker" else LUAJIT
            m._argv = lambda: [luajit, "app.lua"]  # type: ignore[method-assign]
        listed = m.jobs[job]  # a node that ends at once may free the job before `launched` returns
        try:
            reply = await m.handle({"type": "start", "job": job})
            await m.launched(job)  # START answers at once; its nodes are launched in a task
        finally:
            m.__dict__.pop("_argv", None)
        assert reply["ok"], reply
        instances = dict(listed.instances)
        watcher = asyncio.create_task(during(self)) if during else None
        deadline = time.monotonic() + timeout
        while not all(i.done.is_set() for i in instances.values()):
            assert time.monotonic() < deadline, f"job {job} still running after {timeout} s"
            await asyncio.sleep(0.1)
            m.on_tick(time.monotonic())  # what the server's tick does
            self.outbox.flush_logs()
        if watcher:
            await watcher
        await m.wait_closed()  # Docker: the job's container is removed
        self.outbox.flush_logs()
        lines = [ln for msg in self.outbox.journal.read_from(1) for batch in log_batches(msg) if batch["job"] == job
                 for ln in batch["lines"]]
        outcomes = []
        for node, inst in sorted(instances.items()):
            mine = [(ln["level"], ln["text"]) for ln in lines if ln["node"] == node]
            outcomes.append(Outcome(node, inst.state, inst.reason, inst.exit_code, mine))
        return outcomes

    async def run_one(self, code: str, **kw: Any) -> Outcome:
        return (await self.run(code, **kw))[0]


def in_own_loop(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
    """An async test run by asyncio.run in a worker thread: the session's Playwright browser
    (tests/browser) keeps an event loop running in the main thread, where pytest-asyncio
    could not start another."""
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, fn(*args, **kwargs)).result()
    return run


def run_async_tests_in_own_loop(namespace: dict[str, Any]) -> None:
    for name, obj in list(namespace.items()):
        if name.startswith("test_") and inspect.iscoroutinefunction(obj):
            namespace[name] = in_own_loop(obj)


def processes_matching(marker: str) -> list[int]:
    """Pids whose command line contains `marker` (leftover children)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd:
            found.append(int(pid))
    return found
