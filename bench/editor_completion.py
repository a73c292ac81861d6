"""How fast SPLAY completion appears in the editor, in headless chromium: the time from the
keystroke that ends `events.` (or `rpc.`, `misc.`, ...) to the suggestion list showing SPLAY's
functions, measured from the driver (Playwright: the keystroke sent, then the first row of the
suggest widget visible; the round trips are counted in, so this is an upper bound), ROUNDS times
over a few module prefixes.

`.venv/bin/python bench/editor_completion.py [--rounds 30] [--port 8792]` starts its own stack
without daemons (PostgreSQL and Redis from DATABASE_URL / REDIS_URL, or var/bench/), logs in as
the demo student and types in the workspace editor. Prints p50, p90 and max in milliseconds.
The issue's goal: within 100 ms of the keystroke. Asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "backend"), str(ROOT / "tests")]

PREFIXES = ["events", "rpc", "misc", "log", "job"]

def api_names() -> set[str]:
    """Every function and field name of the API description (sandbox/splay_api.json): what a
    SPLAY completion list shows, as opposed to words of the buffer."""
    found: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("functions", "fields") and isinstance(value, (list, dict)):
                    items = value if isinstance(value, list) else [{"name": k} for k in value]
                    found.extend(str(i.get("name", "")).split(".")[-1].split(":")[-1].split("(")[0]
                                 for i in items if isinstance(i, dict))
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(json.loads((ROOT / "sandbox" / "splay_api.json").read_text()))
    return {n for n in found if n}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--port", type=int, default=8792)
    args = p.parse_args()
    known = api_names()

    from playwright.sync_api import sync_playwright

    from cli import services
    from browser_session import student_page
    from stack_helpers import running_stack

    times: list[float] = []
    missed: list[str] = []
    with services.borrowed(), tempfile.TemporaryDirectory() as tmp, \
            running_stack(Path(tmp), args.port, "splaylab_bench_completion", 15, daemons=0, print_logs=False) as s:
        with sync_playwright() as pw:
            page = student_page(pw, s.url, 1280, 800, 30_000)
            editor = page.get_by_test_id("editor").locator(".monaco-editor").first
            editor.wait_for()
            editor.click()
            page.keyboard.press("Control+End")
            rows = page.locator(".suggest-widget .monaco-list-row .label-name")
            # warm-up, not measured: the SPLAY provider is registered once Monaco has loaded
            page.keyboard.type("events", delay=50)
            page.keyboard.type(".")
            rows.first.wait_for(state="visible", timeout=30_000)
            page.keyboard.press("Escape")
            rows.first.wait_for(state="hidden", timeout=5000)
            for i in range(args.rounds):
                prefix = PREFIXES[i % len(PREFIXES)]
                page.keyboard.press("Enter")
                page.keyboard.type(prefix, delay=50)   # a quick typist's pace
                page.wait_for_timeout(200)
                started = time.perf_counter()
                page.keyboard.type(".")
                try:
                    rows.first.wait_for(state="visible", timeout=5000)
                    took = (time.perf_counter() - started) * 1000
                    first = rows.first.inner_text().strip()
                except Exception:   # noqa: BLE001  (a bench: say it, go on)
                    took, first = -1.0, ""
                if took < 0 or first not in known:
                    missed.append(f"{prefix} ({first or 'no list'})")
                else:
                    times.append(took)
                page.keyboard.press("Escape")
                rows.first.wait_for(state="hidden", timeout=5000)
            page.context.browser.close()
    if not times:
        print(f"no completion list seen: {missed}")
        return
    times.sort()
    print(f"completion after '<module>.' ({args.rounds} keystrokes over {', '.join(PREFIXES)}): "
          f"p50 {statistics.median(times):.1f} ms, p90 {times[int(0.9 * (len(times) - 1))]:.1f} ms, "
          f"max {times[-1]:.1f} ms (goal <= 100 ms)" + (f"; no list within 5 s after: {', '.join(missed)}" if missed else ""))


if __name__ == "__main__":
    main()
