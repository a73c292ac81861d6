#!/usr/bin/env python3
"""Catch-up after a cut link, and detection of a dead daemon. Needs root (network namespaces).
`.venv/bin/python bench/session_catchup.py [--instances 2] [--rate 1000] [--cut 60]`.

It starts its own stack (no local daemon) on 10.77.0.1:8777 over PostgreSQL and Redis under
var/bench/ (or DATABASE_URL / REDIS_URL), and one test host (tests/multihost_helpers.py: a
network namespace behind a veth) running a real splayd with `--instances` nodes, each printing
`--rate` numbered lines a second. After 10 s the host's cable is cut for `--cut` seconds, then
restored. Prints:
  - detection: cut → the controller marks the daemon OFFLINE (heartbeat watchdog);
  - catch-up: restore → the newest stored line of every node is less than 1 s old again (the
    live view is live), with the lines the journal held and how fast they came in;
  - whether every printed line was stored exactly once (contiguous seq per node).
Then it kills the host outright (cable cut + kill -9: no FIN reaches the controller) and
prints the time until the daemon is OFFLINE. Asserts nothing about time.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "backend"), str(ROOT / "tests")]

from cli import services  # noqa: E402
from multihost_helpers import (BRIDGE_IP, Host, bridge_up, cleanup_all, config_override,  # noqa: E402
                               daemon_states, require_root, wait_daemon_states)
from stack_helpers import running_stack  # noqa: E402

APP = """
require "splay.base"
events.run(function()
  local i = 0
  while true do
    for _ = 1, {batch} do i = i + 1; print("line " .. i) end
    events.sleep(0.1)
  end
end)
"""


class Cursor:
    """Reads one node's stored lines through the API, each page once (the bench must not load
    the controller it measures with re-reading every line)."""

    def __init__(self, s, job: int, node: int) -> None:
        self.s, self.job, self.node = s, job, node
        self.after, self.count, self.newest_t = 0, 0, 0.0

    def poll(self) -> "Cursor":
        while True:
            page = self.s.api("GET", f"/api/jobs/{self.job}/logs/?node={self.node}&after={self.after}&limit=1000")
            if not page["lines"]:
                return self
            self.count += len(page["lines"])
            self.newest_t = max(self.newest_t, page["lines"][-1]["t"])
            self.after = page["next_after"] or page["lines"][-1]["id"]


def stored_seqs(s, job: int, node: int) -> list[int]:
    after, seqs = 0, []
    while True:
        page = s.api("GET", f"/api/jobs/{job}/logs/?node={node}&after={after}&limit=1000")
        if not page["lines"]:
            return seqs
        seqs += [ln["seq"] for ln in page["lines"]]
        after = page["next_after"] or page["lines"][-1]["id"]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--instances", type=int, default=2)
    p.add_argument("--rate", type=int, default=1000, help="lines per second per instance")
    p.add_argument("--cut", type=float, default=60)
    args = p.parse_args()
    why = require_root()
    if why:
        sys.exit(why)
    bridge_up()
    try:
        with services.borrowed(), tempfile.TemporaryDirectory() as tmp, \
                running_stack(Path(tmp) / "stack", 8777, "splaylab_bench", 7, daemons=0,
                              host=BRIDGE_IP, print_logs=False) as s:
            conf = Path(tmp) / "splayd.toml"
            s.manage("daemon_create", "bench-host", "--max-instances", str(args.instances),
                     "--ports", "20000-20099", "--controller", f"ws://{BRIDGE_IP}:8777/ws/daemon/",
                     "--write-config", str(conf))
            host = Host(k=1, daemon_name="bench-host", config=conf, log=Path(tmp) / "splayd.log")
            host.create()
            conf.write_text(config_override(conf.read_text(), {"ip": host.ip, "log_lines_per_second": args.rate}))
            host.daemon_start()
            wait_daemon_states(s, ["bench-host"], {"ONLINE"})
            duration = int(10 + args.cut + 60)
            job = s.api("POST", "/api/jobs/", {"code": APP.format(batch=args.rate // 10),
                                               "nodes": args.instances, "duration": duration})["id"]
            s.wait_job(job, {"RUNNING"}, timeout=30)
            time.sleep(10)
            host.link_down()
            cut_at = time.monotonic()
            detect = wait_daemon_states(s, ["bench-host"], {"OFFLINE"}, timeout=60)
            time.sleep(max(0.0, args.cut - (time.monotonic() - cut_at)))
            held = sum(f.stat().st_size for f in (Path(tmp) / "bench-host-work" / ".outbox").glob("seg-*"))
            cursors = [Cursor(s, job, n).poll() for n in range(1, args.instances + 1)]
            before = sum(c.count for c in cursors)
            host.link_up()
            up_at = time.monotonic()
            while True:
                ages = [time.time() - c.poll().newest_t for c in cursors]
                if max(ages) < 1.0:
                    break
                if time.monotonic() - up_at > 300:
                    print(f"not caught up after 300 s (ages {ages})")
                    break
                time.sleep(0.25)
            catchup = time.monotonic() - up_at
            after = sum(c.count for c in cursors)
            reconnect = host.log_text().count("connected to")
            s.api("POST", f"/api/jobs/{job}/stop/")
            s.wait_job(job, {"KILLED", "ENDED", "FAILED"}, timeout=60)
            time.sleep(3)  # the last batches after the kill
            exact = all(stored_seqs(s, job, n) == list(range(1, len(stored_seqs(s, job, n)) + 1))
                        for n in range(1, args.instances + 1))
            print(f"cut link: {args.instances} instances x {args.rate} lines/s, cable cut {args.cut:g} s")
            print(f"  detection (cut -> daemon OFFLINE at the controller): {detect:.1f} s")
            print(f"  journal on disk at the end of the cut: {held / 1e6:.1f} MB")
            print(f"  catch-up (restore -> every node's newest stored line < 1 s old): {catchup:.1f} s, "
                  f"{after - before} lines in that time ({(after - before) / catchup:.0f} lines/s)")
            print(f"  every line stored exactly once, seq contiguous: {exact}; daemon connections: {reconnect}")
            host.link_down()
            host.kill()
            killed_at = time.monotonic()
            dead = wait_daemon_states(s, ["bench-host"], {"OFFLINE"}, timeout=60)
            print(f"host killed outright: daemon OFFLINE after {time.monotonic() - killed_at:.1f} s "
                  f"(SPLAYLAB_DAEMON_DEAD_AFTER 6 s; {dead:.1f} s of polling)")
            print(f"  final states: {daemon_states(s, ['bench-host'])}")
            host.destroy()
    finally:
        cleanup_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
