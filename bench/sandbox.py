"""Sandbox/runtime benchmarks: print figures, assert nothing. `make bench-sandbox`.

1. Memory per idle Chord instance: PSS (/proc/PID/smaps_rollup) of every node of a 200-node
   `sandbox/apps/chord.lua` run by the local runner, once all have joined.
2. splay.rpc round trip on loopback against raw LuaSocket request/response (a connection per
   call, as SPLAY's rpc does, and one persistent connection).
3. Time to start 100 and 1,000 instances with the local runner (process backend): from launch
   until every node has printed its first record.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN_LOCAL = [sys.executable, str(ROOT / "sandbox" / "run_local.py")]


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == pid:
                out.append(int(entry.name))
    return out


def pss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    raise RuntimeError(f"no Pss for {pid}")


def chord_memory(nodes: int = 200) -> None:
    proc = subprocess.Popen([*RUN_LOCAL, str(ROOT / "sandbox" / "apps" / "chord.lua"), "--nodes",
                             str(nodes), "--time", "60", "--quiet"], stdout=subprocess.DEVNULL)
    try:
        # The app joins nodes 0.1 s apart; measure once all exist and the ring has settled.
        deadline = time.monotonic() + 60
        pids: list[int] = []
        while time.monotonic() < deadline:
            pids = children(proc.pid)
            if len(pids) >= nodes:
                break
            time.sleep(0.5)
        time.sleep(max(0.0, 0.1 * nodes - 5))
        pids = children(proc.pid)
        figures = sorted(pss_kib(p) for p in pids)
        print(f"PSS per Chord instance, {len(figures)} up: median {statistics.median(figures) / 1024:.2f} MB, "
              f"mean {statistics.mean(figures) / 1024:.2f} MB, max {figures[-1] / 1024:.2f} MB")
    finally:
        proc.terminate()
        proc.wait(30)


def rpc_ratio() -> None:
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as out:
        subprocess.run([*RUN_LOCAL, str(ROOT / "bench" / "rpc_app.lua"), "--nodes", "2", "--time", "60",
                        "--quiet", "--out", out.name], check=True, stdout=subprocess.DEVNULL)
        rtt = next(rec["value"] for rec in map(json.loads, out) if rec.get("name") == "rpc_rtt")
    port = "29500"
    server = subprocess.Popen(["luajit", str(ROOT / "bench" / "raw_rpc.lua"), "server", port],
                              stdout=subprocess.PIPE, text=True)
    try:
        server.stdout.readline()
        raw = {}
        for style in ("per-call", "persistent"):
            result = subprocess.run(["luajit", str(ROOT / "bench" / "raw_rpc.lua"), "client", port, "2000",
                                     style], check=True, capture_output=True, text=True)
            raw[style] = float(result.stdout)
    finally:
        server.kill()
    print(f"RPC round trip on loopback: splay.rpc {rtt * 1e6:.0f} us; raw LuaSocket, a connection per "
          f"call {raw['per-call'] * 1e6:.0f} us (ratio {rtt / raw['per-call']:.2f}), one persistent "
          f"connection {raw['persistent'] * 1e6:.0f} us (ratio {rtt / raw['persistent']:.2f})")


def start_time(nodes: int) -> None:
    app = ROOT / "bench" / "hello_once.lua"
    t0 = time.perf_counter()
    proc = subprocess.Popen([*RUN_LOCAL, str(app), "--nodes", str(nodes), "--time", "120"],
                            stdout=subprocess.PIPE, text=True)
    seen = set()
    assert proc.stdout is not None
    for line in proc.stdout:
        if " up " in line:
            seen.add(line.split()[1])
            if len(seen) == nodes:
                break
    elapsed = time.perf_counter() - t0
    proc.terminate()
    proc.wait(60)
    print(f"start {nodes} instances (local runner, process backend): {elapsed:.2f} s until all printed")


if __name__ == "__main__":
    print(f"SplayLab sandbox benchmarks ({os.cpu_count()} cores)")
    rpc_ratio()
    chord_memory()
    for n in (100, 1000):
        start_time(n)
