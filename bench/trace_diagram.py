"""The space-time diagram's speed in headless chromium: a job of NODES nodes whose trace holds
MESSAGES messages (half requests, half replies: calls matched to their serves), opened in the
job page as a student would.

`.venv/bin/python bench/trace_diagram.py [--nodes 200] [--messages 50000] [--port 8791]`
starts its own stack (as tests do: PostgreSQL and Redis from DATABASE_URL / REDIS_URL, or
var/bench/), writes the synthetic trace straight into the job's tables (the diagram reads the
trace API, whatever wrote the rows), then prints:

- open: from the click on "Show the space-time diagram" to the first frame drawn (the trace
  API's pages, building the model, the first draw);
- draw: the last frame's drawing time (whole run in view, every arrow);
- scroll: frames drawn per second while the page gets a wheel event every animation frame for
  3 s (alternate zooms and sideways scrolls), and the longest gap between two frames.
The issue's goal: render <= 2 s, scroll >= 30 frames/s. Asserts nothing.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "backend"), str(ROOT / "tests")]


# Run in the stack's `manage.py shell`: one ENDED simulated job of the student's, with CALLS
# calls (each a call row on the caller and a serve row on the callee) spread over 300 s.
SEED_JOB = """
import random
from django.utils import timezone
from accounts.models import User
from jobs.models import Job
from traces.models import TraceChunk
random.seed(7)
nodes, calls = {nodes}, {calls}
now = timezone.now()
job = Job.objects.create(owner=User.objects.get(username="student"), code="-- bench", nodes=nodes,
                         duration=300, mode="sim", state="ENDED", started_at=now, ended_at=now, seed=1)
start = now.timestamp()
rows = {{k: [] for k in range(1, nodes + 1)}}
for i in range(calls):
    a = random.randint(1, nodes); b = random.randint(1, nodes - 1); b = b + (b >= a)
    t = start + 300 * i / calls; dur = random.uniform(0.01, 0.3)
    op = "%d:1:%d" % (a, i // 4) if i % 10 == 0 else ""
    rows[a].append([t, "call", b, "find_successor", 60, 40, "ok", op, 1 if op else 0, dur, 1])
    rows[b].append([t + dur / 3, "serve", a if op else 0, "find_successor", 40, 60, "ok", op, 1 if op else 0, dur / 3, 1])
chunks = []
for k, rs in rows.items():
    rs.sort()
    for j in range(0, len(rs), 200):
        chunks.append(TraceChunk(job=job, node=k, size=len(rs[j:j + 200]), rows=rs[j:j + 200]))
TraceChunk.objects.bulk_create(chunks, batch_size=500)
print("JOB", job.id)
"""

# Every animation frame for `ms`, one wheel event on the canvas; counts the frames the
# diagram drew (data-frames) and the longest gap between two of them.
SCROLL = """async (ms) => {
  const canvas = document.querySelector('[data-testid="trace-canvas"]');
  const box = canvas.getBoundingClientRect();
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  const drawnBefore = Number(canvas.dataset.frames);
  let last = performance.now(), worst = 0, i = 0;
  const until = last + ms;
  const seen = [];
  await new Promise((resolve) => {
    const step = () => {
      const now = performance.now();
      if (Number(canvas.dataset.frames) !== seen[seen.length - 1]) {
        seen.push(Number(canvas.dataset.frames));
        worst = Math.max(worst, now - last); last = now;
      }
      if (now >= until) return resolve();
      const zoom = i % 4 < 2;
      canvas.dispatchEvent(new WheelEvent("wheel", { clientX: x, clientY: y, deltaY: zoom ? (i % 8 < 4 ? -60 : 60) : 0,
        deltaX: zoom ? 0 : 80, bubbles: true, cancelable: true }));
      i++;
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
  return { frames: Number(canvas.dataset.frames) - drawnBefore, events: i, worst, lastMs: Number(canvas.dataset.frameMs) };
}"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nodes", type=int, default=200)
    p.add_argument("--messages", type=int, default=50_000)
    p.add_argument("--port", type=int, default=8791)
    args = p.parse_args()

    from playwright.sync_api import sync_playwright

    from cli import services
    from browser_session import student_page
    from stack_helpers import running_stack

    with services.borrowed(), tempfile.TemporaryDirectory() as tmp, \
            running_stack(Path(tmp), args.port, "splaylab_bench_trace", 14, daemons=0, print_logs=False) as s:
        out = s.manage("shell", "-c", SEED_JOB.format(nodes=args.nodes, calls=args.messages // 2))
        job_id = int(str(out).split("JOB", 1)[1].split()[0])
        with sync_playwright() as pw:
            page = student_page(pw, s.url, 1440, 1000, 60_000)
            page.goto(f"/jobs/{job_id}")
            page.get_by_test_id("trace-open").wait_for()
            started = time.perf_counter()
            page.get_by_test_id("trace-open").click()
            page.wait_for_function("""() => Number(document.querySelector('[data-testid="trace-canvas"]')?.dataset.frames) >= 1""")
            opened = time.perf_counter() - started
            canvas = page.get_by_test_id("trace-canvas")
            draw_ms = float(canvas.get_attribute("data-frame-ms") or "nan")
            drawn = canvas.get_attribute("data-drawn")
            summary = page.get_by_test_id("trace-summary").inner_text()
            scroll = page.evaluate(SCROLL, 3000)
            page.context.browser.close()
    print(f"trace diagram: {summary}")
    print(f"  open (click -> first frame)   {opened * 1000:8.0f} ms   (goal <= 2,000 ms)")
    print(f"  draw, whole run in view       {draw_ms:8.1f} ms   ({drawn} arrows)")
    print(f"  scroll: {scroll['frames']} frames in 3 s = {scroll['frames'] / 3:.1f} frames/s "
          f"(goal >= 30), {scroll['events']} wheel events, longest gap {scroll['worst']:.0f} ms, "
          f"last frame {scroll['lastMs']:.1f} ms")


if __name__ == "__main__":
    main()
