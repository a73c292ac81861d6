"""What one daemon's `probe` costs (issue 24; docs/volunteer.md "Behind a router"): N probe
listeners on this machine (splayd/reach.py), one probe_command naming them all; prints the time
to try every target over TCP and UDP and the size of the reply the controller receives.
Loopback only: the time is the daemon's own work, not a network's round trips.

    .venv/bin/python bench/reach_probe.py [N ...]     (default: 10 200)
"""
from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

from splayd.reach import ProbeListener, probe_command  # noqa: E402


async def measure(n: int) -> None:
    listeners = [ProbeListener(f"d{i}", host="127.0.0.1") for i in range(n)]
    for listener in listeners:
        await listener.start()
    try:
        targets = [{"daemon": i, "name": f"d{i}", "ip": "127.0.0.1", "port": listener.port}
                   for i, listener in enumerate(listeners)]
        t0 = time.perf_counter()
        reply = await probe_command({"targets": targets, "timeout": 2})
        elapsed = time.perf_counter() - t0
    finally:
        for listener in listeners:
            await listener.stop()
    both = sum(r["tcp"] and r["udp"] for r in reply["results"])
    size = len(json.dumps(reply))
    print(f"{n} targets: {elapsed * 1000:.0f} ms, {both} reached over TCP and UDP, "
          f"reply {size} bytes ({size / n:.0f} per pair)")


if __name__ == "__main__":
    for count in [int(a) for a in sys.argv[1:]] or [10, 200]:
        asyncio.run(measure(count))
