"""Sandbox/runtime benchmarks: print figures, assert nothing. `make bench-sandbox`.

1. Memory per idle Chord instance: PSS (/proc/PID/smaps_rollup) of every node of a 200-node
   `sandbox/apps/chord.lua` run by the local runner, once all have joined.
2. splay.rpc round trip on loopback against raw LuaSocket request/response, each both on one
   kept connection (SplayLab's rpc default) and with a connection per call (SPLAY's way).
3. Emulation fidelity and overhead (docs/network.md): measured against modelled one-way delays
   (median, p90) for const, jitter, transit-stub and King; and: 64-byte messages/s one pair of nodes, and ten pairs
   at once (a daemon's share), push over UDP and TCP, on the LAN and through the delay queue.
4. Time to start 100 and 1,000 instances with the local runner, process backend and, when a
   Docker engine answers, Docker backend (splayd's: one container, an exec per instance): from
   launch until every node has printed its first record.
5. Optional, `--scale` (not run by default, ~20 minutes): the largest number of Chord instances
   this machine holds. Runs assignments/chord-latency/chord.lua (the paper's Chord, joins 0.25 s
   apart, maintenance every 1 s while the ring forms then every 5 s as in the paper, lookups that
   count hops, spread over 30 s) on the LAN at 200, 500, 1000, 2000 nodes
   (`--scale-levels`). A level passes when >= 99 % of the lookups tried return the key's true
   owner (`--scale-success`) and the median latency per hop is within 10 % (`--scale-slack`)
   of an idle run's (`--scale-idle`, 10 nodes): more nodes mean more hops (log N), so the
   per-hop figure is what the machine's load changes. Stops at the first level that fails.
"""
from __future__ import annotations

import argparse
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
CHORD_DIR = ROOT / "assignments" / "chord-latency"


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
    """Medians of 9 rounds of 1,000 calls each, splay.rpc and raw LuaSocket, in both connection
    styles. The VM's scheduling makes single rounds vary by 2x; medians of interleaved runs are
    the figure."""
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as out:
        subprocess.run([*RUN_LOCAL, str(ROOT / "bench" / "rpc_app.lua"), "--nodes", "2", "--time", "120",
                        "--quiet", "--out", out.name], check=True, stdout=subprocess.DEVNULL)
        rounds: dict[str, list[float]] = {}
        for rec in map(json.loads, out):
            if rec.get("kind") == "metric":
                rounds.setdefault(rec["name"], []).append(rec["value"])
    rpc = {"kept": statistics.median(rounds["rpc_rtt_kept"]),
           "per-call": statistics.median(rounds["rpc_rtt_per_call"])}
    cpu = {side: statistics.median(rounds[f"rpc_cpu_kept_{side}"]) for side in ("client", "server")}
    port = "29500"
    server = subprocess.Popen(["luajit", str(ROOT / "bench" / "raw_rpc.lua"), "server", port],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        server.stdout.readline()
        raw, raw_cpu = {}, {}
        for style in ("per-call", "persistent"):
            result = subprocess.run(["luajit", str(ROOT / "bench" / "raw_rpc.lua"), "client", port, "1000", "9",
                                     style], check=True, capture_output=True, text=True)
            lines = [line.split() for line in result.stdout.splitlines()]
            raw[style] = statistics.median(float(wall) for wall, _ in lines)
            raw_cpu[style] = statistics.median(float(c) for _, c in lines)
    finally:
        server.kill()
    print(f"RPC round trip on loopback (medians of 9 x 1,000 calls): splay.rpc on a kept connection "
          f"{rpc['kept'] * 1e6:.0f} us, with a connection per call {rpc['per-call'] * 1e6:.0f} us; raw "
          f"LuaSocket, one persistent connection {raw['persistent'] * 1e6:.0f} us, a connection per call "
          f"{raw['per-call'] * 1e6:.0f} us")
    print(f"  CPU per call of a kept round: splay.rpc client {cpu['client'] * 1e6:.1f} us, server "
          f"{cpu['server'] * 1e6:.1f} us; raw LuaSocket client (persistent) {raw_cpu['persistent'] * 1e6:.1f} us")
    print(f"  ratios: kept / raw per-call {rpc['kept'] / raw['per-call']:.2f}; kept / raw persistent "
          f"{rpc['kept'] / raw['persistent']:.2f}; per-call / raw per-call "
          f"{rpc['per-call'] / raw['per-call']:.2f}")


def start_time(nodes: int, backend: str = "process") -> None:
    app = ROOT / "bench" / "hello_once.lua"
    t0 = time.perf_counter()
    proc = subprocess.Popen([*RUN_LOCAL, str(app), "--nodes", str(nodes), "--time", "300",
                             "--backend", backend], stdout=subprocess.PIPE, text=True)
    seen = set()
    assert proc.stdout is not None
    for line in proc.stdout:
        if " up " in line:
            seen.add(line.split()[1])
            if len(seen) == nodes:
                break
    elapsed = time.perf_counter() - t0
    proc.terminate()
    proc.wait(120)
    if len(seen) < nodes:
        print(f"start {nodes} instances ({backend} backend): only {len(seen)} came up")
        return
    print(f"start {nodes} instances (local runner, {backend} backend): {elapsed:.2f} s until all printed")


def netem_throughput(pairs: int, net: str) -> tuple[float, float]:
    """Messages/s received over UDP and TCP by `pairs` sender/receiver pairs (bench/netem_app.lua)."""
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as out:
        subprocess.run([*RUN_LOCAL, str(ROOT / "bench" / "netem_app.lua"), "--nodes", str(2 * pairs), "--time",
                        "20", "--quiet", "--net", net, "--out", out.name], check=False, stdout=subprocess.DEVNULL)
        recs = [json.loads(line) for line in out]
    udp = sum(r["value"] for r in recs if r.get("name") == "udp_received")
    tcp = sum(r["value"] for r in recs if r.get("name") == "tcp_received")
    return udp / 3, tcp / 3


def netem_overhead() -> None:
    for pairs in (1, 10):
        lan, emu = netem_throughput(pairs, "lan"), netem_throughput(pairs, "const:1ms")
        print(f"emulation overhead, {pairs} pair(s) of nodes, 64-byte messages: UDP {lan[0]:,.0f}/s on the "
              f"LAN vs {emu[0]:,.0f}/s through the delay queue (const:1ms); TCP {lan[1]:,.0f}/s vs {emu[1]:,.0f}/s")


def netem_fidelity(nodes: int = 6, seconds: int = 12) -> None:
    """Measured against modelled one-way delays (WANCE table 1 style) for four models, with
    sandbox/tests/apps/netprobe.lua (timestamped UDP and TCP probes; one clock)."""
    sys.path.insert(0, str(ROOT / "sandbox"))
    import netmodel
    print(f"network fidelity, {nodes} nodes, one-way delays (ms): model -> measured (relative error)")
    for net in ("const:40ms", "jitter:40ms:10ms", "transit-stub", "king"):
        spec = netmodel.parse_net(net)
        rows = netmodel.delay_rows(spec, nodes, 0)
        with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as out:
            subprocess.run([*RUN_LOCAL, str(ROOT / "sandbox" / "tests" / "apps" / "netprobe.lua"), "--nodes",
                            str(nodes), "--time", str(seconds), "--seed", "0", "--quiet", "--net", net,
                            "--out", out.name], check=False, stdout=subprocess.DEVNULL)
            recs = [json.loads(line) for line in out]
        measured, model = [], []
        rng = __import__("random").Random(0)
        for r in recs:
            if r.get("kind") == "metric" and r.get("name") == "owd_udp":
                src, dst = r["fields"]["src"], r["fields"]["dst"]
                measured.append(r["value"] * 1e3)
                base = rows[src - 1][dst - 1] if rows else spec.delay
                model.append(max(0.0, rng.gauss(base, spec.jitter)) * 1e3)   # the model's own draw
        measured.sort()
        model.sort()

        def q(xs: list[float], f: float) -> float:
            return xs[min(len(xs) - 1, int(f * len(xs)))]
        cells = []
        for label, f in (("median", 0.5), ("p90", 0.9)):
            a, b = q(model, f), q(measured, f)
            cells.append(f"{label} {a:.1f} -> {b:.1f} ({(b - a) / a:+.1%})")
        print(f"  {net:18} n = {len(measured):4}: " + "; ".join(cells))


def docker_engine() -> bool:
    sys.path.insert(0, str(ROOT / "daemon"))
    try:
        from splayd.docker_backend import detect_engine
    except ImportError:
        return False
    return detect_engine()


def chord_lookups(nodes: int) -> dict[str, float | int | None]:
    """One run of the reference Chord (assignments/chord-latency/chord.lua: the paper's Chord,
    stabilisation every 1 s, joins 0.25 s apart, 10 lookups per node that count their hops) on
    the plain LAN -> its figures (check.py's) plus the median latency per hop."""
    sys.path.insert(0, str(CHORD_DIR))
    import check   # assignments/chord-latency/check.py
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as out:
        subprocess.run([*RUN_LOCAL, str(CHORD_DIR / "chord.lua"), "--nodes", str(nodes), "--time", str(check.duration(nodes)),
                        "--quiet", "--out", out.name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False)
        records = [json.loads(line) for line in out]
    f = check.figures(records, nodes)
    per_hop = [r["value"] / r["fields"]["hops"] for r in records
               if r.get("kind") == "metric" and r.get("name") == "lookup_latency" and r["fields"].get("hops", 0) >= 1]
    f["tries"] = nodes * 10
    f["per_hop"] = statistics.median(per_hop) if per_hop else None
    return f


def scale(levels: list[int], idle: int, slack: float, min_success: float) -> None:
    base = chord_lookups(idle)
    if base["per_hop"] is None:
        print(f"scale: the idle run ({idle} nodes) produced no multi-hop lookup; giving up")
        return
    print(f"scale: idle run, {idle} nodes: {base['correct']}/{base['tries']} lookups correct, p50 "
          f"{base['p50_ms']:.2f} ms, mean hops {base['mean_hops']:.2f}, per hop {base['per_hop'] * 1e3:.2f} ms")
    best = None
    for n in levels:
        t0 = time.monotonic()
        r = chord_lookups(n)
        rate = r["correct"] / r["tries"]
        within = r["per_hop"] is not None and r["per_hop"] <= base["per_hop"] * (1 + slack)
        passed = rate >= min_success and within
        lat = (f"p50 {r['p50_ms']:.2f} ms, mean hops {r['mean_hops']:.2f}, per hop {r['per_hop'] * 1e3:.2f} ms "
               f"({r['per_hop'] / base['per_hop']:.2f}x idle)") if r["per_hop"] is not None else "no lookup"
        print(f"scale: {n} nodes ({r['ring']} reported): {r['correct']}/{r['tries']} lookups correct "
              f"({r['answered']} answered, {rate:.1%}), {lat}, {time.monotonic() - t0:.0f} s "
              f"-> {'pass' if passed else 'FAIL'}")
        if not passed:
            break
        best = n
    print(f"scale: largest level held: {best if best else 'none'} Chord instances "
          f"({os.cpu_count()} cores)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", action="store_true", help="only the Chord scale ramp (minutes)")
    parser.add_argument("--scale-levels", default="200,500,1000,2000")
    parser.add_argument("--scale-idle", type=int, default=10, help="nodes of the baseline run")
    parser.add_argument("--scale-slack", type=float, default=0.10, help="allowed latency increase")
    parser.add_argument("--scale-success", type=float, default=0.99, help="minimum success rate")
    args = parser.parse_args()
    print(f"SplayLab sandbox benchmarks ({os.cpu_count()} cores)")
    if args.scale:
        scale([int(x) for x in args.scale_levels.split(",")], args.scale_idle, args.scale_slack,
              args.scale_success)
        sys.exit(0)
    rpc_ratio()
    netem_overhead()
    netem_fidelity()
    chord_memory()
    for n in (100, 1000):
        start_time(n)
    if docker_engine():
        for n in (100, 1000):
            start_time(n, "docker")
    else:
        print("start on the Docker backend: skipped, no engine answers (sudo scripts/start-dockerd.sh)")
