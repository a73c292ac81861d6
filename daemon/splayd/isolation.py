"""How a node process is isolated from the host: a Docker container, bubblewrap namespaces,
or rlimits only.

`sandbox = "docker"` (opt-in; docs/decisions.md): `docker_choose` checks at startup that an
engine answers (else the daemon stops with the reason), removes this daemon's stale
containers, builds the sandbox image when absent (docker_image.ensure_image) and prunes
older ones. Each job then gets one container (docker_backend.DockerJobSandbox, opened by
jobs.py at the job's first start) and each instance is an exec in it.

`isolation_choose(config, luajit)` runs a one-time probe when the config allows bwrap
(`sandbox = "auto" | "bwrap"`): the real wrapper around `luajit -e` in a scratch directory.
It passes → every node runs under bwrap; it fails (or bwrap is absent) → rlimits only,
logged once with the cause. `sandbox = "bwrap"` makes a failed probe a startup error.

Under bwrap a node sees a private mount namespace: /usr (and the /bin, /lib* links to it)
and the runtime's files read-only, its own working directory read-write at the same path,
a private 1 MB /tmp, a fresh /proc of a new PID namespace and a minimal /dev. It has its own
session (no terminal: TIOCSTI), dies with the daemon, and keeps the host network (the job's
other instances run on other daemons). As root, every capability is dropped.
The rlimits of instances.py apply in both cases (they are inherited through bwrap).
"""
from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger("splayd")

BACKENDS = ("docker", "bwrap", "rlimits")
TMP_SIZE = 1024 * 1024  # the private /tmp (tmpfs memory is not under RLIMIT_AS)
PROBE_TIMEOUT = 10.0
# Read-only if present: the dynamic loader's files, the time zone, host names.
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/hosts")
TOP_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


class IsolationError(Exception):
    """`sandbox = "bwrap"` or `"docker"` was asked for and does not work here."""


@dataclass(frozen=True)
class Isolation:
    backend: str  # "docker" | "bwrap" | "rlimits"
    bwrap: str | None = None
    sandbox_dir: Path | None = None
    luajit: str | None = None
    image: str | None = None  # docker: the sandbox image's tag

    @property
    def is_bwrap(self) -> bool:
        return self.backend == "bwrap"

    @property
    def is_docker(self) -> bool:
        return self.backend == "docker"

    def wrap(self, argv: list[str], workdir: Path) -> list[str]:
        if not self.is_bwrap:
            return argv
        assert self.bwrap and self.sandbox_dir and self.luajit
        return bwrap_argv(self.bwrap, self.sandbox_dir, self.luajit, workdir) + argv

    def returncode(self, rc: int) -> int:
        """bwrap exits 128+N when its child died from signal N: report that as -N."""
        if self.is_bwrap and 128 < rc < 128 + 65:
            return -(rc - 128)
        return rc


def bwrap_argv(bwrap: str, sandbox_dir: Path, luajit: str, workdir: Path) -> list[str]:
    work = str(workdir)
    root = ["--cap-drop", "ALL"] if os.geteuid() == 0 else []
    return [*_bwrap_prefix(bwrap, str(sandbox_dir), luajit), "--bind", work, work, "--chdir", work, *root, "--"]


@functools.lru_cache(maxsize=8)
def _bwrap_prefix(bwrap: str, sandbox_dir: str, luajit: str) -> tuple[str, ...]:
    """The part of bwrap's command line that is the same for every node (the host's layout,
    looked up once: a START of 500 nodes otherwise stats the same paths 500 times)."""
    args = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc",
            "--unshare-uts", "--unshare-cgroup-try", "--ro-bind", "/usr", "/usr"]
    for top in TOP_DIRS:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for path in ETC_FILES:
        args += ["--ro-bind-try", path, path]
    # The private /tmp first: binds listed after it land on top, so a runtime or working dir
    # that lives under /tmp (a checkout in /tmp, pytest's tmp_path) stays visible.
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(TMP_SIZE), "--tmpfs", "/tmp"]
    sandbox = str(Path(sandbox_dir).resolve())
    args += ["--ro-bind", sandbox, sandbox]
    luajit_dir = os.path.dirname(os.path.realpath(luajit))
    if not (luajit_dir + "/").startswith(("/usr/", "/bin/", "/lib")):
        args += ["--ro-bind", luajit_dir, luajit_dir]
    return tuple(args)


def probe_bwrap(bwrap: str, sandbox_dir: Path, luajit: str, scratch: Path) -> str | None:
    """None when bwrap runs luajit here; else why not."""
    scratch.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="bwrap-probe-", dir=scratch))
    try:
        argv = bwrap_argv(bwrap, sandbox_dir, luajit, workdir) + [
            luajit, "-e", "io.write(io.open('/etc/passwd') and 'host' or 'ok')"]
        proc = subprocess.run(argv, cwd=workdir, capture_output=True, timeout=PROBE_TIMEOUT,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    out = proc.stdout.decode(errors="replace").strip()
    if proc.returncode == 0 and out == "ok":
        return None
    err = proc.stderr.decode(errors="replace").strip().splitlines()
    return f"exit {proc.returncode}: {err[-1] if err else out or 'no output'}"


def isolation_choose(mode: str, bwrap: str, sandbox_dir: Path, luajit: str, scratch: Path) -> Isolation:
    """Pick the backend once, at startup (mode: auto | bwrap | rlimits)."""
    if mode == "rlimits":
        logger.info("sandbox: rlimits (set by the config)")
        return Isolation("rlimits")
    path = shutil.which(bwrap)
    why = "bwrap not found (Debian package bubblewrap)" if path is None else probe_bwrap(
        path, sandbox_dir, luajit, scratch)
    if why is None:
        logger.info("sandbox: bwrap (%s): private mounts and PID namespace per node", path)
        return Isolation("bwrap", path, Path(sandbox_dir).resolve(), luajit)
    if mode == "bwrap":
        raise IsolationError(f"sandbox = \"bwrap\" but bwrap does not work here: {why}")
    logger.warning("sandbox: rlimits only (bwrap unusable: %s)", why)
    return Isolation("rlimits")


def docker_choose(daemon_name: str, sandbox_dir: Path, luajit: str) -> Isolation:
    """`sandbox = "docker"`: the engine must answer; stale containers of this daemon are
    removed, the image is built when absent and older sandbox images are pruned. Blocking
    (a first image build takes a few seconds): call it from a thread."""
    from .docker_backend import detect_engine, docker_client, remove_stale_containers
    from .docker_image import ensure_image, prune_images

    if not detect_engine(timeout=3.0):
        raise IsolationError(
            'sandbox = "docker" but no Docker engine answers (DOCKER_HOST or /var/run/docker.sock; '
            'is dockerd running? scripts/start-dockerd.sh starts one) - or set sandbox = "auto"')
    try:
        client = docker_client()
        try:
            remove_stale_containers(daemon_name, client)
            tag = ensure_image(sandbox_dir, client=client, luajit=luajit)
            pruned = prune_images(client, keep=tag)
        finally:
            client.close()
    except Exception as e:  # ImageError, DockerException, OSError
        raise IsolationError(f'sandbox = "docker" but the Docker engine failed: {e}') from None
    if pruned:
        logger.info("removed %d old sandbox image(s): %s", len(pruned), ", ".join(pruned))
    logger.info("sandbox: docker (image %s): one container per job, instances as execs", tag)
    return Isolation("docker", sandbox_dir=Path(sandbox_dir).resolve(), luajit=luajit, image=tag)
