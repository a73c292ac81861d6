"""Sustained log throughput, daemons → PostgreSQL → browsers, through the public path only.

`.venv/bin/python bench/log_throughput.py [--rate 20000] [--seconds 60] [--subscribers 100]
[--nodes 20] [--client-procs 2] [--port 8780]` starts its own stack (two local daemons whose
per-instance log rate limit is lifted, as bench/run.py does), logs in once as the demo student
(session cookie, as the browser), opens SUBSCRIBERS websockets on /ws/jobs/<id>/ (spread over
CLIENT_PROCS processes of this benchmark, so that the clients' own JSON decoding is not one
core's), then submits one live job: NODES nodes, each printing RATE / NODES lines a second, in
bursts every 10 ms, for SECONDS, each line `L <node> <i> <wall clock>`; the nodes start
printing START_LEAD s after the submit, once every subscriber listens.

It prints: lines printed (planned), lines stored in PostgreSQL (counted through Django's ORM
once the job ended), lines each subscriber received (min/median over subscribers) and lost
(planned minus received, per subscriber), the print → browser latency p50/p95/p99/max over
every received line (the subscriber's clock minus the node's; one machine, one clock), and the
machine's load. Goals (issue 20): 0 lost, p95 <= 1 s at 20,000 lines/s, 100 subscribers.
Asserts nothing; it measures whatever ingest path is in place.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "backend"), str(ROOT / "tests"), str(ROOT / "bench")]

PRINTER = """-- log throughput benchmark: %(per_node)d lines a second for %(seconds)d s, in bursts every 10 ms
require "splay.base"
events.run(function()
  local per_tick, ticks = %(per_tick)d, %(ticks)d
  -- every node starts at the same wall-clock instant, once the subscribers are listening
  local wait = %(start_at).3f - misc.time()
  if wait > 0 then events.sleep(wait) end
  local start, i = misc.time(), 0
  for k = 1, ticks do
    local t = misc.time()
    for _ = 1, per_tick do
      i = i + 1
      print("L " .. job.position .. " " .. i .. " " .. string.format("%%.4f", t))
    end
    local next_at = start + k * 0.01
    local now = misc.time()
    if next_at > now then events.sleep(next_at - now) end
  end
  events.exit()
end)
"""
START_LEAD = 20.0  # seconds from submit to the first line: deploy + every subscriber connected
RATE_LIMIT = 1_000_000
GIVE_UP_IDLE = 30.0  # seconds without a message after which a live view stops listening
MAX_SAMPLES = 200_000  # latency samples per sampled subscriber  # the daemons' per-instance log rate for this run: the pipeline is measured


def subscriber_proc(url: str, cookie: str, job_id: int, count: int, nodes: int, per_node: int,
                    idle_end: float, out: "multiprocessing.Queue", ready: "multiprocessing.Queue") -> None:
    """COUNT subscribers in one process; puts (received distinct lines per subscriber, latencies)."""
    import websockets

    expected = nodes * per_node

    async def one(index: int) -> tuple[int, list[float]]:
        # one byte per planned line and node (a set of 1.2 M tuples per subscriber is ~100 MB)
        seen = {node: bytearray(per_node + 1) for node in range(1, nodes + 1)}
        received = 0
        latency: list[float] = []
        sample = index % 10 == 0  # every tenth subscriber's latencies, at most MAX_SAMPLES each
        ws_url = url.replace("http", "ws", 1) + f"/ws/jobs/{job_id}/"
        async with websockets.connect(ws_url, additional_headers={"Cookie": cookie, "Origin": url},
                                      max_size=None, open_timeout=60, max_queue=None) as ws:
            ready.put(1)
            last = time.monotonic()
            ended = False
            while True:
                try:
                    raw = await asyncio.wait_for(ws.recv(), 1.0)
                except asyncio.TimeoutError:
                    idle = time.monotonic() - last
                    # done: everything came, or the job ended and nothing more comes; a live
                    # view that lost the end message (a full channel drops it too) gives up later
                    if (received >= expected or ended) and idle > idle_end or idle > GIVE_UP_IDLE:
                        break
                    continue
                now = time.time()
                msg = json.loads(raw)
                if msg["type"] == "log.lines":
                    for line in msg["lines"]:
                        parts = line["text"].split(" ")
                        if len(parts) == 4 and parts[0] == "L":
                            node, i = int(parts[1]), int(parts[2])
                            if not seen[node][i]:
                                seen[node][i] = 1
                                received += 1
                            if sample and len(latency) < MAX_SAMPLES:
                                latency.append(now - float(parts[3]))
                    last = time.monotonic()
                elif msg["type"] == "job.state" and msg["job"]["state"] in ("ENDED", "FAILED", "KILLED"):
                    ended = True
                    last = time.monotonic()
        return received, latency

    async def run() -> list[tuple[int, list[float]]]:
        return await asyncio.gather(*(one(k) for k in range(count)), return_exceptions=True)

    results = asyncio.run(run())
    out.put([(r if not isinstance(r, BaseException) else (-1, [repr(r)])) for r in results])


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rate", type=int, default=20000, help="lines a second, the whole job")
    p.add_argument("--seconds", type=int, default=60)
    p.add_argument("--subscribers", type=int, default=100)
    p.add_argument("--nodes", type=int, default=20)
    p.add_argument("--client-procs", type=int, default=2)
    p.add_argument("--port", type=int, default=8780)
    args = p.parse_args()
    per_node = args.rate // args.nodes
    per_tick = max(1, per_node // 100)
    ticks = args.seconds * 100
    planned = args.nodes * per_tick * ticks

    from cli import services
    from run import browser_session
    from stack_helpers import running_stack

    with services.borrowed(), tempfile.TemporaryDirectory() as tmp, \
            running_stack(Path(tmp), args.port, "splaylab_bench_logs", 10, daemons=2, max_instances=100,
                          print_logs=False, daemon_config=f"log_lines_per_second = {RATE_LIMIT}\n") as s:
        cookie = browser_session(s)
        # subscribers need the job's id: its nodes wait until START_LEAD s after the submit
        # before the first line, and the subscribers say when they listen
        start_at = time.time() + START_LEAD
        code = PRINTER % {"per_node": per_tick * 100, "seconds": args.seconds, "per_tick": per_tick,
                          "ticks": ticks, "start_at": start_at}
        load_before = os.getloadavg()
        job = s.api("POST", "/api/jobs/", {"code": code, "nodes": args.nodes, "duration": args.seconds + 60,
                                           "name": "log throughput"})
        out: multiprocessing.Queue = multiprocessing.Queue()
        ready: multiprocessing.Queue = multiprocessing.Queue()
        shares = [args.subscribers // args.client_procs + (1 if k < args.subscribers % args.client_procs else 0)
                  for k in range(args.client_procs)]
        procs = [multiprocessing.Process(target=subscriber_proc,
                                         args=(s.url, cookie, job["id"], n, args.nodes, per_tick * ticks, 5.0,
                                               out, ready))
                 for n in shares if n]
        for pr in procs:
            pr.start()
        for _ in range(args.subscribers):
            ready.get(timeout=START_LEAD * 4)
        late = time.time() - start_at
        print(f"subscribers listening {-late:.1f} s before the first line" if late < 0 else
              f"WARNING: subscribers listening only {late:.1f} s after the first line (lines before count lost)",
              flush=True)
        print(f"job {job['id']}: {args.nodes} nodes x {per_tick * 100} lines/s for {args.seconds} s "
              f"({planned:,} lines), {args.subscribers} subscribers in {len(procs)} processes", flush=True)
        final = s.wait_job(job["id"], {"ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=args.seconds + 300)
        results: list[tuple[int, list]] = []
        for _ in procs:
            results += out.get(timeout=args.seconds + 900)
        for pr in procs:
            pr.join(30)
        stored = int(s.manage("shell", "-c", (
            f"from logs.models import LogLine; print(LogLine.objects.filter(job_id={job['id']}, "
            "text__startswith='L ').count())")).strip().splitlines()[-1])
        load_after = os.getloadavg()

    failed = [r for r in results if r[0] < 0]
    received = [r[0] for r in results if r[0] >= 0]
    latency = [x for r in results if r[0] >= 0 for x in r[1]]
    print(f"\nlog throughput: {args.rate:,} lines/s planned for {args.seconds} s, job {final['state']} "
          f"({final['reason']})")
    print(f"  printed (planned)   {planned:,}")
    print(f"  stored (PostgreSQL) {stored:,}  lost {planned - stored:,}")
    if received:
        print(f"  per subscriber      received min {min(received):,}  median {statistics.median(received):,.0f}  "
              f"lost max {planned - min(received):,}  ({len(received)} subscribers)")
    if failed:
        print(f"  subscribers failed  {len(failed)}: {failed[0][1][0][:200]}")
    if latency:
        ms = [x * 1e3 for x in latency]
        print(f"  print -> browser    p50 {statistics.median(ms):,.0f} ms  p95 {pct(ms, .95):,.0f} ms  "
              f"p99 {pct(ms, .99):,.0f} ms  max {max(ms):,.0f} ms  ({len(ms):,} samples)")
    print(f"  load average {load_before[0]:.2f} before, {load_after[0]:.2f} after ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
