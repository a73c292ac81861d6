"""The job page's log panel in a real browser (docs/editor.md, "The job's log"): the merged log
of a 3-node run on two daemons in time order, a search that keeps and marks matching lines,
the node filter with it, and the whole log downloaded as JSONL and text."""
from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login

pytestmark = [pytest.mark.stack, pytest.mark.browser]

ROUNDS = 8
NODES = 3
# Node k starts k hundredths of a second in and prints a line every 0.05 s: the three nodes'
# lines interleave in time, while each daemon sends its own nodes' lines in its own batches.
APP = """require "splay.base"
events.run(function()
  events.sleep(job.position / 100)
  for i = 1, %d do
    log.print("round " .. i .. " of node " .. job.position .. ": " .. (i %% 2 == 1 and "apple" or "banana"))
    events.sleep(0.05)
  end
  events.exit()
end)
""" % ROUNDS
TEXTS = {f"round {i} of node {k}: {'apple' if i % 2 else 'banana'}"
         for i in range(1, ROUNDS + 1) for k in range(1, NODES + 1)}
TEXT_LINE = re.compile(r"^t=(-?\d+\.\d{3}) node (\d+) \[(\w+)\] (.*)$")


def download(page: Page, test_id: str, name: str) -> str:
    with page.expect_download() as info:
        page.get_by_test_id(test_id).click()
    assert info.value.suggested_filename == name
    with open(info.value.path(), encoding="utf-8") as f:
        return f.read()


def test_the_student_searches_filters_and_downloads_the_merged_log(page: Page, stack) -> None:
    job = stack.api("POST", "/api/jobs/", {"code": APP, "nodes": NODES, "duration": 20, "name": "log panel"})
    stack.wait_job(job["id"], {"ENDED"}, timeout=60)
    login(page)
    page.goto(f"/jobs/{job['id']}")
    rows = page.get_by_test_id("log-line")
    expect(rows).to_have_count(len(TEXTS))
    expect(page.get_by_test_id("log-count")).to_have_text(f"{len(TEXTS)} lines")
    shown = rows.locator(".log-text").all_inner_texts()

    # search: a word in any case keeps only the lines that hold it, the word marked in each
    page.get_by_test_id("log-search").fill("APPLE")
    apples = sorted(t for t in TEXTS if t.endswith("apple"))
    expect(rows).to_have_count(len(apples))
    expect(page.get_by_test_id("log-count")).to_have_text(f"{len(apples)} of {len(TEXTS)} lines")
    assert sorted(rows.locator(".log-text").all_inner_texts()) == apples
    marks = rows.get_by_test_id("log-match")
    expect(marks).to_have_count(len(apples))
    assert set(marks.all_inner_texts()) == {"apple"}

    # with the node filter: node 2's apples only
    page.get_by_test_id("log-node-filter").select_option("2")
    expect(rows).to_have_count(ROUNDS // 2)
    expect(page.get_by_test_id("log-count")).to_have_text(f"{ROUNDS // 2} of {len(TEXTS)} lines")
    assert rows.locator(".log-text").all_inner_texts() == [
        f"round {i} of node 2: apple" for i in range(1, ROUNDS + 1, 2)]

    # the downloads hold the whole log (not the filtered view), in time order: the page's order
    records = [json.loads(x) for x in download(page, "log-download-jsonl", f"job-{job['id']}-logs.jsonl").splitlines()]
    assert sorted(r["text"] for r in records) == sorted(TEXTS)
    keys = [(r["t"], r["node"], r["seq"]) for r in records]
    assert keys == sorted(keys)
    assert all(0 <= r["t"] <= 20 and r["level"] == "print" for r in records)  # seconds since the job's start
    assert [r["text"] for r in records] == shown
    # ... which is not the order the lines reached the controller (the REST log's id order):
    # the scheduler spreads the 3 nodes over the 2 daemons, each sending its batch every 0.1 s
    assert [ln["text"] for ln in stack.logs(job["id"])] != shown

    text = download(page, "log-download-text", f"job-{job['id']}-logs.txt").splitlines()
    parsed = [TEXT_LINE.match(line) for line in text]
    assert all(parsed), text
    assert [(float(m[1]), int(m[2]), m[3], m[4]) for m in parsed] == [
        (round(r["t"], 3), r["node"], "print", r["text"]) for r in records]
