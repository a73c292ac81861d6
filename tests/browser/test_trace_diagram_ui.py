"""The space-time diagram of a job's messages in a real browser (issue 22 point 5, docs/editor.md
"Debugging a run"): a student simulates Chord on 64 nodes with the assignment's harness (the run
bar's "with the grader's harness"), opens the diagram, follows one lookup and sees its calls
exactly as the trace API records them; a click on the canvas selects the arrow under it, and
the wheel zooms the time window."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from test_assignment_editor_ui import chord, set_model  # noqa: F401  (chord: a fixture)
from test_workspace_ui import login, run

pytestmark = [pytest.mark.stack, pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = (ROOT / "assignments" / "chord" / "reference" / "app.lua").read_text()


def trace_rows(stack, job_id: int) -> list[list]:
    rows, after = [], 0
    while True:
        page = stack.api("GET", f"/api/jobs/{job_id}/trace/?after={after}&limit=1000")
        rows += page["rows"]
        if not page["rows"] or page["next_after"] == after:
            return rows
        after = page["next_after"]


def described(row: list) -> str:
    # t, node, type, peer, name, out, in, outcome, op, depth, dur, count: the page's hop line
    t, node, typ, peer, name, _, _, outcome, _, depth = row[:10]
    to = f"node {peer}" if isinstance(peer, int) else peer
    return f"t={t:.3f} s · node {node} → {to} · {name or typ} · depth {depth} · {outcome}"


def test_the_diagram_follows_one_lookup_of_a_64_node_chord_simulation(page: Page, stack, chord) -> None:  # noqa: F811
    login(page)
    page.goto(f"/courses/{chord['id']}/assignments/chord")
    expect(page.get_by_test_id("editor").locator(".monaco-editor")).to_be_visible()
    set_model(page, "app.lua", REFERENCE)
    page.get_by_test_id("assignment-run").locator("summary").click()   # "Run it yourself"
    harness = page.get_by_test_id("run-with-harness")
    expect(harness).to_be_disabled()            # live runs do not take a harness
    page.get_by_label("Simulate", exact=True).check()
    harness.check()
    page.get_by_test_id("run-network").select_option("king")   # the grader's network: messages take time
    run(page, 64, 240)
    job_id = int(page.url.rstrip("/").rsplit("/", 1)[-1])
    expect(page.get_by_test_id("job-state")).to_have_text("ENDED", timeout=120_000)
    expect(page.get_by_test_id("job-harness")).to_contain_text("Chord: lookups on a ring")

    rows = trace_rows(stack, job_id)
    ops = [r[8] for r in rows if r[2] == "op"]
    assert len(ops) > 100
    calls = sorted((r for r in rows if r[2] in ("call", "ucall") and r[8]), key=lambda r: (r[0], r[1]))
    by_op: dict[str, list[list]] = {}
    for r in calls:
        by_op.setdefault(r[8], []).append(r)
    op = max(by_op, key=lambda o: (len(by_op[o]), o))   # the lookup with the most hops
    assert len(by_op[op]) >= 2

    page.get_by_test_id("trace-open").click()
    expect(page.get_by_test_id("trace-summary")).to_contain_text(f"64 nodes · ", timeout=30_000)
    expect(page.get_by_test_id("trace-summary")).to_contain_text(f"{len(set(ops))} operations")
    page.get_by_test_id("trace-op-select").select_option(op)
    hops = page.get_by_test_id("trace-op-hops").locator("li")
    expect(hops).to_have_text([described(r) for r in by_op[op]])

    # a hop of the list selects its request arrow: the detail says what the trace says
    first = by_op[op][0]
    hops.first.get_by_role("button").click()
    detail = page.get_by_test_id("trace-detail")
    expect(detail).to_contain_text(f"request of {first[2]} {first[4]}: node {first[1]} → node {first[3]}")
    expect(detail).to_contain_text(f"{first[5]:,} bytes")
    expect(detail).to_contain_text(f"{op}, depth {first[9]}")

    # a click on the canvas selects the arrow nearest to it (within 5 px), elsewhere nothing
    canvas = page.get_by_test_id("trace-canvas")
    x, y = map(int, canvas.get_attribute("data-selected-point").split(","))
    box = canvas.bounding_box()
    page.mouse.click(box["x"] + box["width"] - 3, box["y"] + box["height"] - 2)
    expect(detail).to_have_count(0)
    page.mouse.click(box["x"] + x, box["y"] + y)
    expect(detail).to_be_visible()
    nx, ny = map(int, canvas.get_attribute("data-selected-point").split(","))
    assert abs(nx - x) <= 6 and abs(ny - y) <= 6

    # the wheel narrows the time window around the pointer
    window = page.get_by_test_id("trace-window")
    before = window.inner_text()
    span = lambda text: float(re.findall(r"-?[\d.]+", text)[1]) - float(re.findall(r"-?[\d.]+", text)[0])  # noqa: E731
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, -400)
    expect(window).not_to_have_text(before)
    assert span(window.inner_text()) < span(before)


ERRING = """require "splay.base"
rpc = require "splay.rpc"
function ping() return "pong" end
events.run(function()
  rpc.server(job.me.port)
  for i = 1, 8 do
    events.sleep(0.5)
    rpc.call(job.nodes[job.position % #job.nodes + 1], {"ping"})
  end
  if job.position == 2 then error("node two gives up at 4 s") end
end)
"""


def test_jump_to_an_error_of_a_simulated_run_centres_the_window_on_it(page: Page, stack) -> None:
    job = stack.api("POST", "/api/jobs/", {"code": ERRING, "nodes": 3, "duration": 10, "mode": "sim",
                                           "network": {"net": "const:20ms"}})
    stack.wait_job(job["id"], {"ENDED", "FAILED"}, timeout=60)
    login(page)
    page.goto(f"/jobs/{job['id']}")
    page.get_by_test_id("trace-open").click()
    errors = page.get_by_test_id("trace-error-select")
    # the prompt and the one error (its traceback lines are not errors of their own)
    expect(errors.locator("option")).to_have_count(2)
    expect(errors.locator("option").nth(1)).to_contain_text("node 2 · ")
    expect(errors.locator("option").nth(1)).to_contain_text("node two gives up at 4 s")
    errors.select_option("0")
    window = page.get_by_test_id("trace-window")
    low, high = (float(x) for x in re.findall(r"-?[\d.]+", window.inner_text())[:2])
    # centred on the virtual instant the error was logged (after 8 rounds of 0.5 s and a round trip)
    start = stack.api("GET", f"/api/jobs/{job['id']}/trace/?limit=1")["start"]
    [line] = [ln for ln in stack.api("GET", f"/api/jobs/{job['id']}/logs/?level=error")["lines"] if "gives up" in ln["text"]]
    at = line["t"] - start
    assert 4.0 < at < 5.0
    assert low < at < high and high - low <= 2.0 and abs((low + high) / 2 - at) < 0.01, (low, high, at)
    assert float(page.get_by_test_id("trace-canvas").get_attribute("data-drawn")) > 0
