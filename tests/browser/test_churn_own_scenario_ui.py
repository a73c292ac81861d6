"""Churn for students (docs/churn.md, "Your own scenario"): in the run bar's Churn menu a student
writes a scenario of their own, sees its errors by line while typing, fixes them, and runs it
without saving it to the library; the library's small built-in scenarios are offered there too."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login, replace_editor_text

pytestmark = [pytest.mark.stack, pytest.mark.browser]

# Every node prints (and counts a tick) until it is taken down.
APP = """require "splay.base"
events.run(function()
  while true do
    print("alive " .. job.position)
    events.sleep(0.5)
  end
end)
"""
# Line 2 lacks its time unit; fixed, it is 3 nodes, 2 more at 5 s, one leaves at 8 s, the end at 12 s.
WITH_ERROR = "at 0s join 3\nat 5 join 2\nat 8s leave 1\nat 12s stop\n"
FIXED = WITH_ERROR.replace("at 5 join", "at 5s join")
SMALL = ("small: steady 10 nodes, 30 s", "small: 20 nodes with 20 % churn, 60 s",
         "small: a partition healed after 20 s")


def test_a_student_writes_fixes_and_simulates_their_own_scenario(page: Page, stack) -> None:
    library_before = {s["name"] for s in stack.api("GET", "/api/scenarios/")}
    login(page)
    replace_editor_text(page, APP)
    page.get_by_test_id("run-churn").select_option(label="my own scenario…")
    text = page.get_by_label("Your churn scenario")
    expect(text).to_be_visible()
    # the scenario decides the nodes and the duration
    expect(page.get_by_test_id("run-nodes")).to_have_value("")
    expect(page.get_by_test_id("run-duration")).to_have_value("")

    # Run with nothing written: told to write it, no job
    page.get_by_label("Simulate", exact=True).check()
    page.get_by_test_id("run-button").click()
    problem = page.get_by_test_id("run-own-churn-problem")
    expect(problem).to_contain_text("Write your churn scenario first")
    assert re.search(r"/jobs/\d+", page.url) is None

    text.fill(WITH_ERROR)
    expect(problem).to_have_count(0)  # gone once there is a text
    errors = page.get_by_test_id("run-own-churn-errors")
    expect(errors).to_have_text("line 2, column 6: the instant: expected a time unit (s, m, h, d) after 5")
    expect(text).to_have_attribute("aria-invalid", "true")

    text.fill(FIXED)
    expect(page.get_by_test_id("run-own-churn-summary")).to_have_text("5 nodes, ends at 12 s")
    expect(errors).to_have_count(0)
    expect(text).to_have_attribute("aria-invalid", "false")

    page.get_by_test_id("run-button").click()
    page.wait_for_url(re.compile(r"/jobs/\d+"))
    job_id = int(page.url.rstrip("/").rsplit("/", 1)[-1])
    panel = page.get_by_test_id("churn-panel")
    expect(panel).to_be_visible()
    expect(page.get_by_test_id("churn-facts")).to_contain_text("unnamed scenario")
    expect(page.get_by_test_id("churn-facts")).to_contain_text("5 positions")
    expect(page.get_by_test_id("churn-plot").locator("canvas")).to_be_visible()
    expect(page.get_by_test_id("churn-plot")).to_contain_text("planned")
    expect(page.get_by_test_id("job-state")).to_have_text("ENDED", timeout=30_000)
    # at its virtual end (12 s): 3 + 2 - 1 nodes planned, and as many up
    expect(panel.locator(".churn-counts")).to_contain_text("t = 12 s")
    expect(page.get_by_test_id("churn-planned-count")).to_have_text("4")
    expect(page.get_by_test_id("churn-actual-count")).to_have_text("4")

    job = stack.api("GET", f"/api/jobs/{job_id}/")
    assert (job["mode"], job["nodes"], job["duration"]) == ("sim", 5, 12)
    # run, not saved: the library is as it was
    assert {s["name"] for s in stack.api("GET", "/api/scenarios/")} == library_before


def test_the_small_built_in_scenarios_are_offered_and_run(page: Page, stack) -> None:
    login(page)
    replace_editor_text(page, APP)
    churn = page.get_by_test_id("run-churn")
    for name in SMALL:
        expect(churn.locator("option", has_text=name)).to_have_count(1)
    churn.select_option(label="small: a partition healed after 20 s")
    expect(page.get_by_label("Your churn scenario")).to_have_count(0)  # the own text is for "my own" only
    page.get_by_label("Simulate", exact=True).check()
    page.get_by_test_id("run-button").click()
    page.wait_for_url(re.compile(r"/jobs/\d+"))
    expect(page.get_by_test_id("churn-facts")).to_contain_text("small: a partition healed after 20 s")
    expect(page.get_by_test_id("churn-facts")).to_contain_text("16 positions")
    expect(page.get_by_test_id("job-state")).to_have_text("ENDED", timeout=60_000)
    expect(page.get_by_test_id("churn-planned-count")).to_have_text("16")
    expect(page.get_by_test_id("churn-actual-count")).to_have_text("16")
