"""Sustained log throughput, daemons → PostgreSQL → browsers, through the public path only.

`.venv/bin/python bench/log_throughput.py [--rate 20000] [--seconds 60] [--subscribers 100]
[--nodes 20] [--client-procs 4] [--port 8780] [--no-deflate]` starts its own stack (two local
daemons whose per-instance log rate limit is lifted, as bench/run.py does), logs in once as the
demo student (session cookie, as the browser), opens SUBSCRIBERS websockets on /ws/jobs/<id>/
(spread over CLIENT_PROCS processes of this benchmark; each scans its frames with a regular expression and
numpy instead of decoding them into dicts, as 2 million lines a second share the server's
cores), then submits one live job: NODES nodes, each printing RATE / NODES lines a second, in
bursts every 10 ms, for SECONDS, each line `L <node> <i> <wall clock>`; the nodes start
printing START_LEAD s after the submit, once every subscriber listens.

It prints: lines printed (planned), lines stored in PostgreSQL (counted through Django's ORM
once the job ended), how long after the last planned print the job ended (its nodes' exits
come after their lines: an upper bound on how far the ingest fell behind), the distinct planned
lines each subscriber received (min/median over subscribers; every line's (node, i) is
checked), lost (planned minus received), lines received twice, lines the server said it skipped
(log.skipped: a page would fetch them; here they count as lost), frames per subscriber, the
print → browser latency p50/p95/p99/max over every received line of every subscriber (the
subscriber's clock when it takes the frame from its websocket minus the node's, so the client's
own unbounded receive queue counts too; one machine, one clock; 1 ms bins), and the machine's
load. Goals (issue 20): 0 lost,
p95 <= 1 s at 20,000 lines/s, 100 subscribers.
Asserts nothing; it measures whatever ingest path is in place.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
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
RATE_LIMIT = 1_000_000  # the daemons' per-instance log rate for this run: the pipeline is measured
GIVE_UP_IDLE = 30.0  # seconds without a message after which a live view stops listening


# a bench line as the browser JSON carries it: "text":"L <node> <i> <print time>"
BENCH_TEXT = re.compile(rb'"text":"L (\d+ \d+ \d+\.\d+)"')
LATENCY_BINS = 600_000  # 1 ms bins, up to 10 min; later counts in the last bin


def subscriber_proc(url: str, cookie: str, job_id: int, count: int, nodes: int, per_node: int,
                    idle_end: float, deflate: bool, out: "multiprocessing.Queue",
                    ready: "multiprocessing.Queue") -> None:
    """COUNT subscribers in one process. Each checks every line it gets: which of the planned
    (node, i) it is (a flag per planned line: lost = planned - flagged; duplicates = received -
    flagged) and its print → receive latency, counted in this process's 1 ms histogram. The
    frames are scanned, not decoded into dicts: a regular expression over the frame's bytes and
    numpy for the arithmetic (2 million lines a second on the machine the server runs on).
    Puts {"subs": [(flagged, received, skipped, frames) or (-1, error)], "hist": (bins, counts)}."""
    import numpy as np
    import websockets

    stride = per_node + 1
    hist = np.zeros(LATENCY_BINS, dtype=np.int64)

    async def one(index: int) -> tuple[int, int, int, int]:
        seen = np.zeros((nodes + 1) * stride, dtype=bool)
        received = skipped = frames = 0
        ws_url = url.replace("http", "ws", 1) + f"/ws/jobs/{job_id}/"
        async with websockets.connect(ws_url, additional_headers={"Cookie": cookie, "Origin": url},
                                      max_size=None, open_timeout=60, max_queue=None,
                                      compression="deflate" if deflate else None) as ws:
            ready.put(1)
            last = time.monotonic()
            ended = False
            while True:
                try:
                    raw = await asyncio.wait_for(ws.recv(decode=False), 1.0)
                except asyncio.TimeoutError:
                    idle = time.monotonic() - last
                    # done: everything came, or the job ended and nothing more comes; a live
                    # view that lost the end message gives up later
                    if (int(seen.sum()) >= nodes * per_node or ended) and idle > idle_end or idle > GIVE_UP_IDLE:
                        break
                    continue
                now = time.time()
                last = time.monotonic()
                frames += 1
                if raw.startswith(b'{"type":"log.lines"'):
                    found = BENCH_TEXT.findall(raw)
                    if not found:
                        continue
                    fields = np.fromstring(b" ".join(found), sep=" ").reshape(-1, 3)
                    seen[fields[:, 0].astype(np.int64) * stride + fields[:, 1].astype(np.int64)] = True
                    received += len(fields)
                    ms = np.clip(((now - fields[:, 2]) * 1000).astype(np.int64), 0, LATENCY_BINS - 1)
                    low = int(ms.min())
                    counts = np.bincount(ms - low)
                    hist[low:low + len(counts)] += counts
                elif raw.startswith(b'{"type":"log.skipped"'):
                    skipped += json.loads(raw)["skipped"]
                elif raw.startswith(b'{"type":"job.state"'):
                    ended = ended or json.loads(raw)["job"]["state"] in ("ENDED", "FAILED", "KILLED")
        return int(seen.sum()), received, skipped, frames

    async def run() -> list:
        return await asyncio.gather(*(one(k) for k in range(count)), return_exceptions=True)

    results = asyncio.run(run())
    bins = np.flatnonzero(hist)
    out.put({"subs": [(r if not isinstance(r, BaseException) else (-1, repr(r))) for r in results],
             "hist": (bins.tolist(), hist[bins].tolist())})


def hist_pct(bins: list[int], counts: list[int], q: float) -> int:
    """The q-quantile (ms) of a 1 ms histogram given as its non-empty bins."""
    total, want, acc = sum(counts), q * sum(counts), 0
    for b, c in zip(bins, counts):
        acc += c
        if acc >= want:
            return b
    return bins[-1] if total else 0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rate", type=int, default=20000, help="lines a second, the whole job")
    p.add_argument("--seconds", type=int, default=60)
    p.add_argument("--subscribers", type=int, default=100)
    p.add_argument("--nodes", type=int, default=20)
    p.add_argument("--client-procs", type=int, default=4)
    p.add_argument("--port", type=int, default=8780)
    p.add_argument("--no-deflate", action="store_true",
                   help="the clients do not offer permessage-deflate (browsers do)")
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
                                               not args.no_deflate, out, ready))
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
        # a node's exit reaches the controller after its lines (one ordered stream per daemon):
        # how late the job ends bounds how far the ingest, upstream of the live views, fell behind
        ended_late = time.time() - (start_at + args.seconds)
        results: list = []
        latency: dict[int, int] = {}
        for _ in procs:
            part = out.get(timeout=args.seconds + 900)
            results += part["subs"]
            for b, c in zip(*part["hist"]):
                latency[b] = latency.get(b, 0) + c
        for pr in procs:
            pr.join(30)
        stored = int(s.manage("shell", "-c", (
            f"from logs.models import LogLine; print(LogLine.objects.filter(job_id={job['id']}, "
            "text__startswith='L ').count())")).strip().splitlines()[-1])
        load_after = os.getloadavg()

    failed = [r for r in results if r[0] < 0]
    ok = [r for r in results if r[0] >= 0]
    received = [r[0] for r in ok]
    print(f"\nlog throughput: {args.rate:,} lines/s planned for {args.seconds} s, job {final['state']} "
          f"({final['reason']})")
    print(f"  printed (planned)   {planned:,}")
    print(f"  stored (PostgreSQL) {stored:,}  lost {planned - stored:,}  (job ended {ended_late:,.1f} s "
          f"after the last planned print)")
    if ok:
        print(f"  per subscriber      received min {min(received):,}  median {statistics.median(received):,.0f}  "
              f"lost max {planned - min(received):,}  duplicates {sum(r[1] - r[0] for r in ok):,}  "
              f"skipped {sum(r[2] for r in ok):,}  ({len(ok)} subscribers)")
        frames = [r[3] for r in ok]
        print(f"  frames per subscriber  median {statistics.median(frames):,.0f}  "
              f"(lines per frame {statistics.median(received) / max(1, statistics.median(frames)):,.0f})")
    if failed:
        print(f"  subscribers failed  {len(failed)}: {failed[0][1][:200]}")
    if latency:
        bins = sorted(latency)
        counts = [latency[b] for b in bins]
        print(f"  print -> browser    p50 {hist_pct(bins, counts, .5):,} ms  p95 {hist_pct(bins, counts, .95):,} ms  "
              f"p99 {hist_pct(bins, counts, .99):,} ms  max {bins[-1]:,} ms  (every received line: "
              f"{sum(counts):,})")
    print(f"  load average {load_before[0]:.2f} before, {load_after[0]:.2f} after ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
