"""What one node start and one leave cost on this machine, part by part (bench/README.md, "Churn
at scale"): CPU (user + system of the child and what it waited for, from wait4) and wall time
per start, each part measured alone, `--count` starts one after another.

`.venv/bin/python bench/node_start_cost.py [--count 200]` prints one row per part:
- fork+exec from the daemon's Python (subprocess.Popen with the rlimit preexec_fn, /bin/true);
- bubblewrap with the daemon's exact command line around /bin/true (namespaces, mounts, exit);
- luajit -e '' alone; the node runtime (node.lua) loading the SPLAY libraries and running an
  empty app, without and with bwrap;
- the machine's whole CPU (from /proc/stat) per start, which includes the kernel's namespace
  teardown run outside the child (not in wait4's figures), and whatever else the machine ran
  meanwhile;
- a leave: SIGTERM to a held node, its events.on_leave path, its exit and reaping.
Asserts nothing; run it on a quiet machine (it prints the load average).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "daemon"))

from splayd.isolation import bwrap_argv  # noqa: E402
from splayd.limits import Limits, rlimit_preexec  # noqa: E402
from splayd.workdir import node_env  # noqa: E402

LIMITS = Limits(max_mem=256 * 1024 * 1024, max_cpu=30, max_open_files=64, max_file_size=64 * 1024 * 1024,
                duration=None)


def machine_cpu() -> float:
    """Seconds of CPU the whole machine spent (every core, idle and iowait excluded)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    busy = sum(fields) - fields[3] - fields[4]
    return busy / os.sysconf("SC_CLK_TCK")


def run(argv: list[str], cwd: Path, preexec, env) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(wall, cpu) of one start to exit, cpu from wait4 (the child and its reaped descendants)."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True, env=env,
                         preexec_fn=preexec)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"{argv[-3:]} exited {p.returncode}")
    return wall, ru.ru_utime + ru.ru_stime


def measure(label: str, count: int, argv: list[str], cwd: Path, bwrapped: bool, env=None) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    walls, cpus = [], []
    preexec = rlimit_preexec(LIMITS, no_fork=not bwrapped)
    self_before = resource.getrusage(resource.RUSAGE_SELF)
    m0 = machine_cpu()
    for _ in range(count):
        w, c = run(argv, cwd, preexec, env)
        walls.append(w)
        cpus.append(c)
    machine = (machine_cpu() - m0) / count
    self_after = resource.getrusage(resource.RUSAGE_SELF)
    parent = (self_after.ru_utime + self_after.ru_stime - self_before.ru_utime - self_before.ru_stime) / count
    walls.sort()
    cpu = sum(cpus) / count
    print(f"  {label:46s} wall p50 {walls[count // 2] * 1e3:6.2f} ms  child cpu {cpu * 1e3:6.2f} ms  "
          f"parent cpu {parent * 1e3:5.2f} ms  machine cpu {machine * 1e3:6.2f} ms", flush=True)
    return walls[count // 2], cpu


def leave_cost(count: int, argv: list[str], cwd: Path, bwrapped: bool) -> None:
    """A held node (runtime loaded, waiting at its gate) is SIGTERMed; wall from the signal to
    the reaped exit, as a graceful leave does (under bwrap the signal goes to luajit, bwrap's
    descendant, found the way instances.Instance._terminate finds it)."""
    from splayd.hostfs import descendants, _comm
    import signal

    walls = []
    m0 = machine_cpu()
    for _ in range(count):
        gate = cwd / "go"
        if gate.exists():
            gate.unlink()
        os.mkfifo(gate)
        fd = os.open(gate, os.O_RDWR | os.O_NONBLOCK)
        p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
                             env=node_env(cwd), preexec_fn=rlimit_preexec(LIMITS, no_fork=not bwrapped))
        time.sleep(0.15)  # loaded and waiting at the gate
        os.write(fd, b"1")  # joined: the app runs its events loop (the leave's path)
        time.sleep(0.05)
        t = time.perf_counter()
        targets = [p.pid]
        if bwrapped:
            targets = [q for q in descendants(p.pid) if _comm(q) not in ("bwrap", "")]
        for q in targets:
            os.kill(q, signal.SIGTERM)
        p.wait()
        walls.append(time.perf_counter() - t)
        os.close(fd)
    machine = (machine_cpu() - m0) / count
    walls.sort()
    print(f"  {'leave: SIGTERM -> reaped' + (' (bwrap)' if bwrapped else ''):46s} wall p50 "
          f"{walls[count // 2] * 1e3:6.2f} ms  (machine cpu per start+leave {machine * 1e3:6.2f} ms, "
          f"0.2 s idle each)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--nodes", type=int, default=1000, help="node list size in job.json")
    args = ap.parse_args()
    luajit = subprocess.check_output(["sh", "-c", "command -v luajit"], text=True).strip()
    bwrap = subprocess.check_output(["sh", "-c", "command -v bwrap"], text=True).strip()
    sandbox = ROOT / "sandbox"
    print(f"node start cost, {args.count} starts each, load average {os.getloadavg()[0]:.2f} "
          f"({os.cpu_count()} cores)", flush=True)
    with tempfile.TemporaryDirectory(dir=ROOT / "var") as tmp:
        work = Path(tmp) / "node-1"
        work.mkdir()
        nodes = [{"ip": "127.0.0.1", "port": 20000 + i} for i in range(args.nodes)]
        spec = {"me": nodes[0], "list_type": "head", "list_size": 16, "position": 1, "job_id": 1,
                "duration": None, "limits": {}, "nodes": nodes[:16], "all_nodes": nodes}
        (work / "job.json").write_text(json.dumps(spec))
        (work / "app.lua").write_text('require "splay.base"\n')
        wrap = bwrap_argv(bwrap, sandbox, luajit, work)
        node = [luajit, str(sandbox / "node.lua"), "job.json", "app.lua"]
        env = node_env(work)
        measure("fork+exec /bin/true (daemon's Popen)", args.count, ["/bin/true"], work, False)
        measure("bwrap /bin/true", args.count, wrap + ["/bin/true"], work, True)
        measure("luajit -e ''", args.count, [luajit, "-e", ""], work, False)
        measure("node.lua, empty app", args.count, node, work, False, env)
        measure("bwrap + node.lua, empty app (a node start)", args.count, wrap + node, work, True, env)
        held = dict(spec, gate="go")
        (work / "job.json").write_text(json.dumps(held))
        (work / "app.lua").write_text('require "splay.base"\nevents.run(function() while true do events.sleep(5) end end)\n')
        leave_cost(min(args.count, 50), node, work, False)
        leave_cost(min(args.count, 50), wrap + node, work, True)


if __name__ == "__main__":
    main()
