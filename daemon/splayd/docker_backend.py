"""Docker sandbox backend: one container per job per daemon, one `docker exec` per instance.

The container (`DockerJobSandbox.open`) runs the image of docker_image.py with a read-only
root, every capability dropped, no-new-privileges, a pids limit, a memory limit (per-instance
limit × instances + margin), host networking (instances on other daemons must reach this
job's instances), user nobody (65534; the daemon's own uid when it is not root), the job's
directory `work_dir/job-<id>` bind-mounted at /work, a small tmpfs /tmp, docker-init as PID 1
and a LuaJIT sleep loop to keep it up (the image has no shell). No Docker socket is mounted.

Each instance is an exec in it (`start_instance`): cwd /work/node-<k>,
`luajit /sandbox/node.lua job.json app.lua`, env PATH/LANG/HOME only, no stdin, no tty.
The container's ulimits (RLIMIT_CPU soft max_cpu / hard +2 s, NOFILE, FSIZE, CORE 0) are per
process and are inherited by every exec, so each instance has its own CPU budget exactly as on
the process backend. RLIMIT_AS (max_mem) cannot be a container ulimit (runc's own init runs
under those and fails to load its seccomp filter with a small address space), so every exec
starts as `luajit /usr/lib/splaylab/launch.lua as=<max_mem> -- <argv>`, which sets it and
execs argv (docker_image.LAUNCH_LUA).

Output: the SDK is blocking, so each instance has a reader thread that demultiplexes the exec's
stdout/stderr frames, splits them into lines (records.LineSplitter, same caps as the process
backend) and hands them to the event loop with loop.call_soon_threadsafe; at most
MAX_BATCHES_IN_FLIGHT batches wait in the loop, then the thread stops reading (backpressure:
the node blocks on its pipe, as with the process backend). The end comes after the last line:
exec_inspect's ExitCode, mapped to a subprocess-style returncode (128+N → -N, killed by signal
N), so instances.exit_outcome applies unchanged.

Killing one instance: SIGKILL to the exec's host pid (exec_inspect "Pid"), after checking in
/proc/<pid>/cgroup that this pid still belongs to this container (pids are reused). All at
once: `close()` removes the container (kill + remove).

Everything that talks to the engine blocks; the async methods run it in threads.
"""
from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import stat
import threading
import time
from pathlib import Path
from typing import Any, Callable, Protocol

from .docker_image import IMAGE_LAUNCH, IMAGE_LUAJIT, IMAGE_SANDBOX, IMAGE_WORK, ensure_image
from .records import LineSplitter

logger = logging.getLogger("splayd")

MB = 1024 * 1024
CPU_HARD_GRACE = 2  # seconds between SIGXCPU (soft limit) and SIGKILL (hard limit)
SANDBOX_UID = 65534  # nobody
MEM_MARGIN = 64 * MB  # container memory beyond instances × max_mem (init, keepalive, slack)
PIDS_MARGIN = 8  # docker-init, the keepalive, transient `runc init` of execs
TMPFS_MB = 16
MAX_BATCHES_IN_FLIGHT = 64
PID_WAIT = 10.0  # seconds for an exec to show its pid
# Execs started at once per container: the engine serialises them anyway, and a thousand
# concurrent creates make each wait past PID_WAIT (1,000 instances on one daemon failed so).
EXEC_STARTS_AT_ONCE = 4
EXIT_WAIT = 5.0  # seconds for exec_inspect to show the exit once the output ended
LABEL_DAEMON = "splaylab.daemon"
LABEL_JOB = "splaylab.job"
KEEPALIVE = [IMAGE_LUAJIT, "-e", "local s = require 'socket' while true do s.sleep(3600) end"]
NODE_ARGV = [IMAGE_LUAJIT, f"{IMAGE_SANDBOX}/node.lua", "job.json", "app.lua"]

OnLine = Callable[[bytes, bool, str], None]  # (line, truncated, "stdout" | "stderr")
OnExit = Callable[[int], None]  # returncode, subprocess style (-N: killed by signal N)


class SandboxLimits(Protocol):
    """What the backend needs of instances.Limits (same fields, same units)."""

    max_mem: int  # bytes, RLIMIT_AS per instance
    max_cpu: int  # seconds, RLIMIT_CPU soft per instance
    max_open_files: int
    max_file_size: int  # bytes


class DockerSandboxError(Exception):
    """The engine refused or failed (container create, exec); the message says what."""


def docker_client(timeout: float = 60) -> Any:
    """A Docker SDK client for the engine of the environment (DOCKER_HOST or the local
    socket). The pool is large because every running instance holds one connection."""
    import docker

    return docker.from_env(timeout=timeout, max_pool_size=64)


def detect_engine(timeout: float = 1.0) -> bool:
    """True when a Docker engine answers a ping within `timeout` seconds (and the SDK is
    installed). Never raises. Blocking: at most ~2 × timeout."""
    try:
        import docker
    except ImportError:
        return False
    try:
        client = docker.from_env(timeout=timeout, version="auto")
    except Exception:
        return False
    try:
        return bool(client.ping())
    except Exception:
        return False
    finally:
        client.close()


def container_name(daemon_name: str, job: int) -> str:
    safe = re.sub(r"[^a-zA-Z0-9_.-]", "-", daemon_name).strip("-.") or "daemon"
    return f"splaylab-{safe}-job-{job}"


def remove_stale_containers(daemon_name: str, client: Any = None) -> list[str]:
    """Force-remove every container labelled splaylab.daemon=<daemon_name> (left by a previous
    run of this daemon: a restart kills every instance). Blocking; returns their names."""
    own = client is None
    client = client or docker_client()
    removed = []
    try:
        for c in client.containers.list(all=True, filters={"label": f"{LABEL_DAEMON}={daemon_name}"}):
            try:
                c.remove(force=True)
                removed.append(c.name)
            except Exception as e:  # already gone, or being removed
                logger.warning("cannot remove stale container %s: %s", c.name, e)
    finally:
        if own:
            client.close()
    if removed:
        logger.info("removed %d stale sandbox container(s): %s", len(removed), ", ".join(removed))
    return removed


def returncode_of(exit_code: int | None) -> int:
    """exec_inspect's ExitCode → subprocess returncode (128+N is death by signal N; no exit
    code, e.g. the container was removed under it, counts as SIGKILL)."""
    if exit_code is None:
        return -signal.SIGKILL
    if 128 < exit_code <= 128 + 64:
        return -(exit_code - 128)
    return exit_code


def _pid_in_container(pid: int, container_id: str) -> bool:
    """Whether host pid `pid` is a process of the container (guards against pid reuse)."""
    try:
        with open(f"/proc/{pid}/cgroup", encoding="utf-8", errors="replace") as f:
            return container_id in f.read()
    except OSError:
        return False


class DockerExec:
    """One instance: an exec in the job's container, its reader thread, its end."""

    def __init__(
        self,
        sandbox: "DockerJobSandbox",
        node: int,
        argv: list[str],
        cwd: str,
        env: dict[str, str],
        on_line: OnLine,
        on_exit: OnExit | None,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.sandbox = sandbox
        self.node = node
        self.argv = argv
        self.cwd = cwd
        self.env = env
        self.on_line = on_line
        self.on_exit = on_exit
        self.loop = loop
        self.exec_id: str | None = None
        self.pid: int | None = None  # host pid
        self.returncode: int | None = None
        self.exit_code: int | None = None  # as Docker reports it
        self.killed = False
        self._started: asyncio.Future[int] = loop.create_future()
        self._done: asyncio.Future[int] = loop.create_future()
        self._slots = threading.BoundedSemaphore(MAX_BATCHES_IN_FLIGHT)
        self._abandon = threading.Event()  # the loop no longer listens
        self._sock: Any = None
        self._thread = threading.Thread(
            target=self._run, name=f"docker-job{sandbox.job}-node{node}", daemon=True
        )

    # -- loop side ---------------------------------------------------------------------
    async def _start(self) -> None:
        self._thread.start()
        await self._started

    async def wait(self) -> int:
        """The returncode, once every line was delivered."""
        return await asyncio.shield(self._done)

    @property
    def done(self) -> bool:
        return self._done.done()

    def kill(self) -> bool:
        """SIGKILL the instance, now or (still starting) as soon as its pid is known. False
        when it has already ended or its pid cannot be reached from here."""
        if self._done.done():
            return False
        self.killed = True
        if self.pid is None:
            return True  # the reader thread kills it once the exec shows its pid
        return self._kill_pid()

    def send_signal(self, sig: int) -> bool:
        """Send `sig` to the running instance (a graceful leave's SIGTERM); False if not running."""
        if self._done.done() or self.pid is None:
            return False
        return self._kill_pid(sig)

    def _kill_pid(self, sig: int = signal.SIGKILL) -> bool:
        pid, cid = self.pid, self.sandbox.container_id
        if not pid or not cid or self.exit_code is not None:
            return False
        if not _pid_in_container(pid, cid):
            return False
        try:
            os.kill(pid, sig)
            return True
        except (ProcessLookupError, PermissionError):
            return False

    def _on_batch(self, batch: list[tuple[bytes, bool, str]]) -> None:
        try:
            for line, truncated, stream in batch:
                try:
                    self.on_line(line, truncated, stream)
                except Exception:
                    logger.exception("job %s node %s: on_line failed", self.sandbox.job, self.node)
        finally:
            self._slots.release()

    def _on_started(self, pid: int | None, error: BaseException | None) -> None:
        if self._started.done():
            return
        if error is not None:
            self._started.set_exception(error)
        else:
            self._started.set_result(pid or 0)

    def _on_start_failed(self, error: BaseException) -> None:
        """start_instance raises; wait() gives -SIGKILL; on_exit is not called."""
        if not self._started.done():
            self._started.set_exception(error)
        self.returncode = returncode_of(None)
        if not self._done.done():
            self._done.set_result(self.returncode)

    def _on_end(self, returncode: int) -> None:
        self.returncode = returncode
        if not self._done.done():
            self._done.set_result(returncode)
        if self.on_exit:
            try:
                self.on_exit(returncode)
            except Exception:
                logger.exception("job %s node %s: on_exit failed", self.sandbox.job, self.node)

    # -- thread side -------------------------------------------------------------------
    def _call(self, fn: Callable[..., None], *args: Any) -> bool:
        try:
            self.loop.call_soon_threadsafe(fn, *args)
            return True
        except RuntimeError:  # loop closed
            self._abandon.set()
            return False

    def _deliver(self, batch: list[tuple[bytes, bool, str]]) -> None:
        while not self._slots.acquire(timeout=0.5):
            if self._abandon.is_set() or self.loop.is_closed():
                return
        if not self._call(self._on_batch, batch):
            self._slots.release()

    def _run(self) -> None:
        with self.sandbox.starting:
            sock = self._start_exec()
        if sock is None:
            return
        self._call(self._on_started, self.pid, None)
        if self.killed:
            self._kill_pid()
        self._pump(sock)
        self._call(self._on_end, self._wait_exit())

    def _start_exec(self) -> Any:
        """Create and start the exec, wait for its pid; None (reported) when it cannot start."""
        api = self.sandbox.client.api
        try:
            self.exec_id = api.exec_create(
                self.sandbox.container_id,
                self.argv,
                stdout=True,
                stderr=True,
                stdin=False,
                tty=False,
                privileged=False,
                user=self.sandbox.user,
                environment=self.env,
                workdir=self.cwd,
            )["Id"]
            sock = api.exec_start(self.exec_id, tty=False, socket=True)
            self._sock = sock
            api._disable_socket_timeout(sock)  # an idle node may print nothing for minutes
            deadline = time.monotonic() + PID_WAIT
            while True:
                info = api.exec_inspect(self.exec_id)
                if info.get("Pid"):
                    self.pid = int(info["Pid"])
                    break
                if not info.get("Running") and info.get("ExitCode") is not None:
                    break
                if time.monotonic() > deadline:
                    raise DockerSandboxError(f"exec of node {self.node} did not start")
                time.sleep(0.005)
        except Exception as e:
            err = e if isinstance(e, DockerSandboxError) else DockerSandboxError(
                f"cannot start node {self.node} in container {self.sandbox.name}: {e}"
            )
            self._close_sock()
            self._call(self._on_start_failed, err)
            return None
        return sock

    def _pump(self, sock: Any) -> None:
        from docker.utils.socket import STDERR, frames_iter

        splitters = {"stdout": LineSplitter(), "stderr": LineSplitter()}
        try:
            for stream_id, data in frames_iter(sock, tty=False):
                name = "stderr" if stream_id == STDERR else "stdout"
                lines = splitters[name].feed(data)
                if lines:
                    self._deliver([(line, t, name) for line, t in lines])
                if self._abandon.is_set():
                    break
        except Exception as e:  # the connection dropped (container removed, engine gone)
            logger.debug("job %s node %s: output stream ended: %r", self.sandbox.job, self.node, e)
        finally:
            self._close_sock()
        for name, splitter in splitters.items():
            rest = splitter.finish()
            if rest:
                self._deliver([(line, t, name) for line, t in rest])

    def _wait_exit(self) -> int:
        import docker

        api = self.sandbox.client.api
        deadline = time.monotonic() + EXIT_WAIT
        while True:
            try:
                info = api.exec_inspect(self.exec_id)
            except (docker.errors.NotFound, docker.errors.APIError, OSError) as e:
                logger.debug("job %s node %s: exec_inspect: %s", self.sandbox.job, self.node, e)
                break
            except Exception:
                break
            if not info.get("Running") and info.get("ExitCode") is not None:
                self.exit_code = int(info["ExitCode"])
                break
            if time.monotonic() > deadline:
                logger.warning("job %s node %s: output ended but the exec still runs; killing",
                               self.sandbox.job, self.node)
                self._kill_pid()
                deadline = time.monotonic() + EXIT_WAIT
            time.sleep(0.01)
        return returncode_of(self.exit_code)

    def _close_sock(self) -> None:
        sock, self._sock = self._sock, None
        if sock is None:
            return
        for obj in (sock, getattr(sock, "_response", None)):
            try:
                if obj is not None:
                    obj.close()
            except Exception:
                pass


class DockerJobSandbox:
    """The container of one job on this daemon, and the instances running in it.

    Usage (from the event loop):
        sb = DockerJobSandbox(daemon_name=..., job=7, job_dir=work_dir / "job-7",
                              sandbox_dir=config.sandbox_dir, limits=limits, instances=3)
        await sb.open()                                   # image (built if absent) + container
        ex = await sb.start_instance(0, on_line)          # cwd /work/node-0
        rc = await ex.wait()                              # or on_exit=callback
        sb.kill_instance(0)
        await sb.close()                                  # kill + remove the container
    """

    def __init__(
        self,
        *,
        daemon_name: str,
        job: int,
        job_dir: str | Path,
        sandbox_dir: str | Path,
        limits: SandboxLimits,
        instances: int,
        client: Any = None,
        image: str | None = None,
        luajit: str = "luajit",
        tmp_mb: int = TMPFS_MB,
        user: str | None = None,
    ) -> None:
        self.daemon_name = daemon_name
        self.job = job
        self.job_dir = Path(job_dir).resolve()
        self.sandbox_dir = Path(sandbox_dir)
        self.limits = limits
        self.instances = max(1, instances)
        self._own_client = client is None
        self.client = client or docker_client()
        self.image = image
        self.luajit = luajit
        self.tmp_mb = tmp_mb
        # Root daemon: nobody. Otherwise the daemon's own uid, which owns the directories.
        self.uid = SANDBOX_UID if os.geteuid() == 0 else os.geteuid()
        self.gid = SANDBOX_UID if os.geteuid() == 0 else os.getegid()
        self.user = user or f"{self.uid}:{self.gid}"
        self.name = container_name(daemon_name, job)
        self.container: Any = None
        self.container_id: str | None = None
        self.execs: dict[int, DockerExec] = {}
        self.closed = False
        self.starting = threading.BoundedSemaphore(EXEC_STARTS_AT_ONCE)

    # -- container ---------------------------------------------------------------------
    def container_config(self, image: str) -> dict[str, Any]:
        """The keyword arguments of containers.create (kept apart for tests and docs)."""
        from docker.types import Mount, Ulimit

        lim = self.limits
        mem = lim.max_mem * self.instances + MEM_MARGIN
        return dict(
            image=image,
            command=KEEPALIVE,
            name=self.name,
            labels={LABEL_DAEMON: self.daemon_name, LABEL_JOB: str(self.job)},
            user=self.user,
            working_dir=IMAGE_WORK,
            environment={"PATH": "/usr/bin", "LANG": "C.UTF-8", "HOME": IMAGE_WORK},
            read_only=True,
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            pids_limit=self.instances + PIDS_MARGIN,
            mem_limit=mem,
            memswap_limit=mem,  # no swap on top (ignored where swap accounting is off)
            oom_score_adj=500,  # under memory pressure the host kills sandboxes first
            # config `nice`: the CFS weight of that niceness (1024 / 1.25^nice), for the container
            cpu_shares=max(2, round(1024 / 1.25 ** getattr(lim, "nice", 0))),
            network_mode="host",
            ipc_mode="private",
            init=True,
            mounts=[Mount(target=IMAGE_WORK, source=str(self.job_dir), type="bind", read_only=False)],
            tmpfs={"/tmp": f"rw,nosuid,nodev,noexec,size={self.tmp_mb}m,mode=1777"},
            ulimits=[
                Ulimit(name="cpu", soft=lim.max_cpu, hard=lim.max_cpu + CPU_HARD_GRACE),
                # No "as": runc's init runs under these and cannot set up seccomp with a
                # small address space; RLIMIT_AS is set per exec by the launcher instead.
                Ulimit(name="nofile", soft=lim.max_open_files, hard=lim.max_open_files),
                Ulimit(name="fsize", soft=lim.max_file_size, hard=lim.max_file_size),
                Ulimit(name="core", soft=0, hard=0),
            ],
            log_config={"type": "none"},
            stdin_open=False,
            tty=False,
            detach=True,
        )

    def _open_sync(self) -> None:
        import docker

        if not self.job_dir.is_dir():
            raise DockerSandboxError(f"job directory {self.job_dir} does not exist")
        image = self.image or ensure_image(self.sandbox_dir, client=self.client, luajit=self.luajit)
        self.image = image
        try:  # a leftover with our name (previous run, or a job id reused)
            self.client.containers.get(self.name).remove(force=True)
        except docker.errors.NotFound:
            pass
        try:
            container = self.client.containers.create(**self.container_config(image))
            self.container, self.container_id = container, container.id
            container.start()
        except docker.errors.DockerException as e:
            if self.container is not None:
                try:
                    self.container.remove(force=True)
                except docker.errors.DockerException:
                    pass
            self.container = self.container_id = None
            raise DockerSandboxError(f"cannot start the sandbox container of job {self.job}: {e}") from None

    async def open(self) -> None:
        """Build the image when absent and start the job's container."""
        if self.closed:
            raise DockerSandboxError("sandbox closed")
        await asyncio.to_thread(self._open_sync)

    # -- instances ---------------------------------------------------------------------
    def _prepare_dir(self, host_dir: Path) -> str:
        """The container path of an instance directory; make it writable by the sandbox user
        (the directory itself only, never following a link)."""
        try:
            rel = host_dir.resolve(strict=True).relative_to(self.job_dir)
        except (OSError, ValueError):
            raise DockerSandboxError(f"{host_dir} is not a directory inside {self.job_dir}") from None
        st = os.lstat(host_dir)
        if not stat.S_ISDIR(st.st_mode):
            raise DockerSandboxError(f"{host_dir} is not a directory")
        if os.geteuid() == 0 and (st.st_uid, st.st_gid) != (self.uid, self.gid):
            os.chown(host_dir, self.uid, self.gid, follow_symlinks=False)
        return f"{IMAGE_WORK}/{rel.as_posix()}" if rel.parts else IMAGE_WORK

    async def start_instance(
        self,
        node: int,
        on_line: OnLine,
        on_exit: OnExit | None = None,
        *,
        workdir: str | Path | None = None,
        argv: list[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> DockerExec:
        """Run one instance; returns once its process runs (raises DockerSandboxError when it
        cannot start). `workdir` is the HOST directory (default job_dir/node-<node>), which
        must lie inside job_dir; `argv` defaults to luajit /sandbox/node.lua job.json app.lua.
        on_line(line, truncated, stream) and then on_exit(returncode) run in the loop."""
        if self.closed or self.container_id is None:
            raise DockerSandboxError("sandbox not open")
        old = self.execs.get(node)
        if old is not None and not old.done:
            raise DockerSandboxError(f"node {node} is already running")
        host_dir = Path(workdir) if workdir is not None else self.job_dir / f"node-{node}"
        cwd = self._prepare_dir(host_dir)
        env = env or {"PATH": "/usr/bin", "LANG": "C.UTF-8", "HOME": cwd}
        ex = DockerExec(self, node, self.command(argv or NODE_ARGV), cwd, env, on_line, on_exit,
                        asyncio.get_running_loop())
        self.execs[node] = ex
        await ex._start()
        return ex

    def command(self, argv: list[str]) -> list[str]:
        """The exec's command line: the launcher sets RLIMIT_AS, then execs argv."""
        return [IMAGE_LUAJIT, IMAGE_LAUNCH, f"as={self.limits.max_mem}", "--", *argv]

    def kill_instance(self, node: int) -> bool:
        """SIGKILL one instance (non-blocking); its end is reported through wait/on_exit."""
        ex = self.execs.get(node)
        return ex.kill() if ex is not None else False

    def _remove_sync(self) -> None:
        import docker

        if self.container is not None:
            try:
                self.container.remove(force=True)
            except docker.errors.NotFound:
                pass
            except docker.errors.DockerException as e:
                logger.warning("job %s: cannot remove container %s: %s", self.job, self.name, e)

    async def close(self, timeout: float = 10.0) -> None:
        """Kill every instance and remove the container (idempotent). Waits for the instances
        to report their end (returncode -9 for those still running)."""
        if self.closed:
            return
        self.closed = True
        for ex in self.execs.values():
            if not ex.done:
                ex.killed = True
        await asyncio.to_thread(self._remove_sync)
        pending = [asyncio.ensure_future(ex.wait()) for ex in self.execs.values() if not ex.done]
        if pending:
            _, still = await asyncio.wait(pending, timeout=timeout)
            for ex in self.execs.values():
                if not ex.done:
                    ex._abandon.set()
            for p in still:
                p.cancel()
        if self._own_client:
            await asyncio.to_thread(self.client.close)
