"""`./splaylab run --backend docker`: the nodes of a local run as execs in one hardened
container, splayd's own Docker backend (daemon/splayd/docker_backend.py). Same console lines,
same JSONL records, same exit status as the process backend (sandbox/run_local.py).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from run_records import Output, report_exit
from run_setup import SANDBOX, job_spec, local_nodes

DAEMON_DIR = SANDBOX.parent / "daemon"  # splayd (the Docker backend), imported on demand


class RunLimits:
    """What docker_backend.DockerJobSandbox needs (its SandboxLimits): the process backend's
    rlimits."""

    def __init__(self, max_mem: int, max_cpu: int, max_open_files: int, max_file_size: int) -> None:
        self.max_mem, self.max_cpu = max_mem, max_cpu
        self.max_open_files, self.max_file_size = max_open_files, max_file_size


def load_docker_backend() -> tuple[Any, str | None]:
    """(the splayd.docker_backend module, None) or (None, why the Docker backend cannot run)."""
    try:
        import docker  # noqa: F401  (the SDK: only for --backend docker)
    except ImportError:
        return None, ("--backend docker needs the Docker SDK for Python, not installed for "
                      f"{sys.executable} (pip install docker; ./splaylab run uses the project's .venv)")
    if str(DAEMON_DIR) not in sys.path:
        sys.path.insert(0, str(DAEMON_DIR))
    try:
        from splayd import docker_backend
    except ImportError as e:
        return None, f"--backend docker: cannot import splayd's Docker backend from {DAEMON_DIR}: {e}"
    if not docker_backend.detect_engine(timeout=3.0):
        return None, ("--backend docker: no Docker engine answers (DOCKER_HOST or /var/run/docker.sock); "
                      "start one, e.g. `sudo scripts/start-dockerd.sh`, or use --backend process")
    return docker_backend, None


def run_docker(args: argparse.Namespace) -> int:
    import asyncio

    app = Path(args.app)
    if not app.is_file():
        print(f"run_local: no such file: {app}", file=sys.stderr)
        return 2
    luajit = shutil.which("luajit")  # the image is built from the host's luajit and its libraries
    if not luajit:
        print("run_local: luajit not found (apt-get install luajit)", file=sys.stderr)
        return 2
    backend, why = load_docker_backend()
    if backend is None:
        print(f"run_local: {why}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_run_docker(args, app, luajit, backend))
    except KeyboardInterrupt:
        return 1


async def _run_docker(args: argparse.Namespace, app: Path, luajit: str, backend: Any) -> int:
    import asyncio

    n = args.nodes
    nodes = local_nodes(n)  # host networking: the same addresses and ports as the process backend
    root = Path(tempfile.mkdtemp(prefix="splaylab-run-"))
    root.chmod(0o755)  # bind-mounted at /work: the sandbox user (nobody under root) walks it
    for k in range(1, n + 1):
        wd = root / f"node-{k}"
        wd.mkdir()
        shutil.copyfile(app, wd / "app.lua")
        if args.harness:
            shutil.copyfile(args.harness, wd / "harness.lua")
        (wd / "job.json").write_text(json.dumps(job_spec(args, nodes, k)))
    limits = RunLimits(args.max_mem, int(args.time) + 5, 256, 64 * 1024 * 1024)
    out_file = open(args.out, "w", encoding="utf-8") if args.out else None
    failed = False
    sandbox = None
    execs: dict[int, Any] = {}
    try:
        try:
            sandbox = backend.DockerJobSandbox(daemon_name=f"run-local-{os.getpid()}", job=0, job_dir=root,
                                               sandbox_dir=SANDBOX, limits=limits, instances=n, luajit=luajit)
            await sandbox.open()  # builds the image when absent (a few seconds, once)
        except Exception as e:  # DockerSandboxError, ImageError, DockerException
            print(f"run_local: cannot start the sandbox container: {e}", file=sys.stderr)
            return 2
        start = time.time()
        output = Output(out_file, start, args.quiet, args.output_limits)

        def on_line(k: int) -> Callable[[bytes, bool, str], None]:
            return lambda line, truncated, stream: output.node_line(k, line, truncated, stream)

        async def start_node(k: int) -> None:
            execs[k] = await sandbox.start_instance(k, on_line(k), workdir=root / f"node-{k}")

        results = await asyncio.gather(*(start_node(k) for k in range(1, n + 1)), return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            print(f"run_local: {errors[0]}", file=sys.stderr)
            return 1
        waits = {k: asyncio.ensure_future(ex.wait()) for k, ex in execs.items()}

        async def ticks() -> None:   # the output limits' rate records, as the process backend's loop
            while True:
                await asyncio.sleep(0.1)
                output.tick()
        ticker = asyncio.ensure_future(ticks())
        await asyncio.wait(list(waits.values()), timeout=max(0.0, start + args.time - time.time()))
        stopped = {k for k, w in waits.items() if not w.done()}
        for k in sorted(stopped):
            execs[k].kill()
        if stopped:  # their last lines come before their exit records
            await asyncio.wait([waits[k] for k in stopped], timeout=10)
        ticker.cancel()
        for k in sorted(execs):   # pending rate records before the exits
            output.node_closed(k)
        for k in sorted(execs):
            if k in stopped:
                output.exit(k, 0, "stopped: duration of %s s reached" % args.time)
            else:
                failed = report_exit(output, k, waits[k].result()) or failed
    except asyncio.CancelledError:
        failed = True
    finally:
        if sandbox is not None:
            await sandbox.close()  # kills what still runs, removes the container
        if out_file:
            out_file.close()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"run_local: node directories kept in {root}", file=sys.stderr)
    return 1 if failed else 0
