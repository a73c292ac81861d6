#!/usr/bin/env python3
"""The controller's cost for N connected daemons heartbeating (default 200).
`.venv/bin/python bench/daemons_load.py [--daemons 200] [--seconds 60]`.

It starts its own stack (web, Celery worker and beat, no local daemon) over PostgreSQL and Redis
under var/bench/ (or DATABASE_URL / REDIS_URL) on port 8777, registers N daemons, and connects N
lightweight fake daemons from this process (asyncio websockets, the real protocol: hello,
heartbeat every SPLAYLAB_HEARTBEAT s, acks read back; they run no node). Only for this load
figure: real daemons would add nothing per heartbeat but their nodes. Prints the CPU share and
memory of the web process and of the Celery processes (the 1 s sweep of silent daemons) over
the measuring window, and the heartbeat → ack round trip. Asserts nothing about time.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "backend"), str(ROOT / "tests")]

from cli import services  # noqa: E402
from stack_helpers import running_stack  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process and its children that were waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields[11:15]) / TICKS


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def tree(pid: int) -> list[int]:
    """pid and its descendants (Celery's prefork children)."""
    out = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = task / "children"
        if children.exists():
            for child in children.read_text().split():
                out += tree(int(child))
    return out


async def fake_daemon(url: str, name: str, key: str, heartbeat: float, stop: asyncio.Event,
                      rtts: list[float], connected: list[int]) -> None:
    async with websockets.connect(url, max_size=2**24, ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "name": name, "key": key, "session": None, "version": 1,
                                  "ip": "127.0.0.1", "max_instances": 10, "ports": [30000, 30009],
                                  "instances": [], "sandbox": "rlimits"}))
        welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome", welcome
        connected.append(1)

        async def receive() -> None:
            async for raw in ws:
                msg = json.loads(raw)
                if msg.get("type") == "ack" and isinstance(msg.get("t"), float):
                    rtts.append(1000 * (time.monotonic() - msg["t"]))

        reader = asyncio.create_task(receive())
        await asyncio.sleep(heartbeat * (hash(name) % 1000) / 1000)  # spread the beats
        while not stop.is_set():
            await ws.send(json.dumps({"type": "heartbeat", "running": 0, "load": 0.1,
                                      "t": time.monotonic(), "rtt_ms": None}))
            try:
                await asyncio.wait_for(stop.wait(), heartbeat)
            except asyncio.TimeoutError:
                pass
        reader.cancel()


async def drive(url: str, daemons: list[tuple[str, str]], heartbeat: float, seconds: float,
                pids: dict[str, list[int]]) -> None:
    stop = asyncio.Event()
    rtts: list[float] = []
    connected: list[int] = []
    tasks = [asyncio.create_task(fake_daemon(url, n, k, heartbeat, stop, rtts, connected)) for n, k in daemons]
    while len(connected) < len(daemons):
        await asyncio.sleep(0.2)
        for t in tasks:
            if t.done() and t.exception():
                raise t.exception()
    print(f"{len(daemons)} daemons connected; warming up {2 * heartbeat:g} s", file=sys.stderr)
    await asyncio.sleep(2 * heartbeat)
    rtts.clear()
    before = {part: sum(cpu_seconds(p) for p in ps) for part, ps in pids.items()}
    t0 = time.monotonic()
    await asyncio.sleep(seconds)
    elapsed = time.monotonic() - t0
    after = {part: sum(cpu_seconds(p) for p in ps) for part, ps in pids.items()}
    rss = {part: sum(rss_mb(p) for p in ps) for part, ps in pids.items()}
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    beats = len(rtts)
    print(f"controller cost of {len(daemons)} daemons heartbeating every {heartbeat:g} s, "
          f"measured over {elapsed:.0f} s ({beats} heartbeats acked, {beats / elapsed:.0f}/s)")
    for part in pids:
        share = 100 * (after[part] - before[part]) / elapsed
        print(f"  {part:<7} CPU {share:5.1f} % of one core, RSS {rss[part]:.0f} MB")
    rtts.sort()
    print(f"  heartbeat -> ack: median {statistics.median(rtts):.1f} ms, "
          f"p99 {rtts[int(0.99 * (len(rtts) - 1))]:.1f} ms, max {rtts[-1]:.1f} ms")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--daemons", type=int, default=200)
    p.add_argument("--seconds", type=float, default=60)
    args = p.parse_args()
    heartbeat = float(os.environ.get("SPLAYLAB_HEARTBEAT", "2"))
    with services.borrowed(), tempfile.TemporaryDirectory() as tmp, \
            running_stack(Path(tmp), 8777, "splaylab_bench", 7, daemons=0, print_logs=False) as s:
        out = s.manage("shell", "-c", (
            "from daemons.services import daemon_create_or_rekey\n"
            f"for i in range({args.daemons}):\n"
            "    d, key = daemon_create_or_rekey(name=f'fake-{i}', max_instances=10, port_lo=30000, port_hi=30009)\n"
            "    print(d.name, key)"))
        daemons = [tuple(line.split()) for line in out.splitlines() if line.startswith("fake-")]
        children = s.handle.children
        pids = {"web": tree(children["web"].pid), "worker": tree(children["worker"].pid),
                "beat": tree(children["beat"].pid)}
        url = s.url.replace("http", "ws", 1) + "/ws/daemon/"
        asyncio.run(drive(url, daemons, heartbeat, args.seconds, pids))
    return 0


if __name__ == "__main__":
    sys.exit(main())
