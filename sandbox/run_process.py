"""The process backend of a local run (sandbox/run_local.py): node k is
`luajit sandbox/node.lua job.json app.lua` in its own temporary working directory and session,
with rlimits, stdin /dev/null and a minimal environment, as splayd starts it; one selector loop
reads every node's output through run_records.Output (the daemon's output limits) and runs the
churn plan's joins and leaves against this machine's clock."""
from __future__ import annotations

import argparse
import json
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

SANDBOX = Path(__file__).resolve().parent
NODE_LUA = SANDBOX / "node.lua"
if str(SANDBOX) not in sys.path:
    sys.path.insert(0, str(SANDBOX))
from run_records import GRACE_S, Output, report_exit, report_graceful_leave  # noqa: E402
from run_setup import job_spec, local_nodes  # noqa: E402


def rlimit_preexec(max_mem: int, max_cpu: int, max_files: int, max_fsize: int) -> Callable[[], None]:
    def apply() -> None:
        for res, value in ((resource.RLIMIT_AS, max_mem), (resource.RLIMIT_NOFILE, max_files),
                           (resource.RLIMIT_FSIZE, max_fsize), (resource.RLIMIT_CORE, 0)):
            _, hard = resource.getrlimit(res)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(res, (value, value))
        resource.setrlimit(resource.RLIMIT_CPU, (max_cpu, max_cpu + 2))
    return apply


class Node:
    def __init__(self, k: int, proc: subprocess.Popen[bytes], workdir: Path) -> None:
        self.k, self.proc, self.workdir = k, proc, workdir
        self.code: int | None = None
        self.left: str | None = None  # killed by the churn scenario: "failure" or "graceful"
        self.kill_at: float | None = None  # a graceful leave's SIGKILL deadline


def run_processes(args: argparse.Namespace) -> int:
    """Run the app on args.nodes local processes (or as args.churn_plan says); the exit status."""
    app = Path(args.app)
    if not app.is_file():
        print(f"run_local: no such file: {app}", file=sys.stderr)
        return 2
    luajit = shutil.which("luajit")
    if not luajit:
        print("run_local: luajit not found (apt-get install luajit)", file=sys.stderr)
        return 2
    n = args.nodes
    nodes = local_nodes(n)  # free ports, a loopback address per node
    root = Path(tempfile.mkdtemp(prefix="splaylab-run-"))
    out_file = open(args.out, "w", encoding="utf-8") if args.out else None
    start = time.time()
    output = Output(out_file, start, args.quiet, args.output_limits)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": "/nonexistent"}
    preexec = rlimit_preexec(args.max_mem, int(args.time) + 5, 256, 64 * 1024 * 1024)
    sel = selectors.DefaultSelector()
    running: list[Node] = []
    failed = False
    plan = getattr(args, "churn_plan", None)
    sessions: dict[int, int] = {}
    by_k: dict[int, Node] = {}
    open_pipes = 0

    def start_node(k: int) -> None:
        nonlocal open_pipes
        sessions[k] = sessions.get(k, 0) + 1
        wd = root / (f"node-{k}" if sessions[k] == 1 else f"node-{k}.{sessions[k]}")
        wd.mkdir()
        shutil.copyfile(app, wd / "app.lua")
        if args.harness:
            shutil.copyfile(args.harness, wd / "harness.lua")
        (wd / "job.json").write_text(json.dumps(job_spec(args, nodes, k)))
        proc = subprocess.Popen([luajit, str(NODE_LUA), "job.json", "app.lua"], cwd=wd, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=preexec, close_fds=True)
        node = Node(k, proc, wd)
        os.set_blocking(proc.stdout.fileno(), False)  # type: ignore[union-attr]
        sel.register(proc.stdout, selectors.EVENT_READ, node)  # type: ignore[arg-type]
        running.append(node)
        by_k[k] = node
        open_pipes += 1

    def kill(node: Node, sig: int) -> None:
        try:
            os.killpg(node.proc.pid, sig)
        except ProcessLookupError:
            pass

    def end_graceful_leave(node: Node) -> tuple[int, bool]:
        """The exit code of a node that left gracefully, and whether the run ended while it
        was still in its grace period (then it is killed now)."""
        if node.kill_at is None:  # the grace period's SIGKILL was sent
            return node.proc.wait(), False
        try:  # its output may end a moment before its exit status is there
            return node.proc.wait(timeout=0.2), False
        except subprocess.TimeoutExpired:
            kill(node, signal.SIGKILL)
            return node.proc.wait(), True

    def churn_event(e: Any) -> None:
        node = by_k.get(e.node)
        alive = node is not None and node.proc.poll() is None and node.left is None
        if e.kind == "join":
            if alive:
                return  # still up (it never left): nothing to start
            output.churn(e.node, "join", e.t)
            start_node(e.node)
        elif alive:
            output.churn(e.node, "leave", e.t, e.graceful)
            node.left = "graceful" if e.graceful else "failure"
            if e.graceful:
                kill(node, signal.SIGTERM)
                node.kill_at = time.time() + GRACE_S
            else:
                kill(node, signal.SIGKILL)

    try:
        events = [e for e in plan.events if e.kind in ("join", "leave")] if plan is not None else []
        next_event = 0
        if plan is None:
            for k in range(1, n + 1):
                start_node(k)
        deadline = start + (min(args.time, plan.end) if plan is not None and plan.end is not None else args.time)
        while open_pipes > 0 or next_event < len(events):
            now = time.time()
            left = deadline - now
            if left <= 0:
                break
            # joins and leaves due now, against this machine's clock (not the loop's pace)
            while next_event < len(events) and start + events[next_event].t <= now:
                churn_event(events[next_event])
                next_event += 1
            for node in running:
                if node.kill_at is not None and now >= node.kill_at and node.proc.poll() is None:
                    kill(node, signal.SIGKILL)
                    node.kill_at = None
            wait = min(left, 0.5)
            if next_event < len(events):
                wait = max(0.0, min(wait, start + events[next_event].t - time.time()))
            for key, _ in sel.select(timeout=wait):
                node = key.data
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    open_pipes -= 1
                    output.node_closed(node.k)
                    continue
                output.node_data(node.k, chunk)
            output.tick()
        timed_out = open_pipes > 0
        for node in running:   # the output ends here: pending rate records before the exits
            output.node_closed(node.k)
        for node in running:
            if node.left == "graceful":
                code, cut_short = end_graceful_leave(node)
                failed = report_graceful_leave(output, node.k, code, cut_short) or failed
                continue
            if node.left is not None:
                node.proc.wait()
                output.exit(node.k, 0, f"left (churn: {node.left})")
                continue
            if node.proc.poll() is None and timed_out:
                try:
                    os.killpg(node.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                node.proc.wait()
                output.exit(node.k, 0, f"stopped: the scenario's stop at {plan.end:g} s"
                            if plan is not None and plan.end is not None and plan.end < args.time
                            else "stopped: duration of %s s reached" % args.time)
                continue
            failed = report_exit(output, node.k, node.proc.wait()) or failed
    except KeyboardInterrupt:
        failed = True
    finally:
        for node in running:
            if node.proc.poll() is None:
                try:
                    os.killpg(node.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                node.proc.wait()
        sel.close()
        if out_file:
            out_file.close()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"run_local: node directories kept in {root}", file=sys.stderr)
    return 1 if failed else 0
