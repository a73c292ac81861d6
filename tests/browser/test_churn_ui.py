"""A job under a library churn scenario in a real browser: the student picks the instructor's
scenario in the run bar, and the job page draws the planned population beside the actual one
as nodes join and leave (docs/churn.md, "On the service")."""
from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login, replace_editor_text

pytestmark = [pytest.mark.stack, pytest.mark.browser]

# 2 nodes at once, 2 more at 3 s (4 up), one leaves at 8 s (3 up), the end at 14 s.
SCENARIO = "at 0s join 2\nat 3s join 2\nat 8s leave 1\nat 14s stop\n"
# Every node prints (and counts a tick) until it is taken down.
APP = """require "splay.base"
local metrics = require "splay.metrics"
events.run(function()
  while true do
    print("alive " .. job.position)
    metrics.count("ticks", 1)
    events.sleep(0.5)
  end
end)
"""


def test_a_library_scenario_chosen_in_the_run_bar_drives_the_population(page: Page, stack) -> None:
    name = f"browser churn run {uuid.uuid4().hex[:6]}"
    stack.api("POST", "/api/scenarios/", {"name": name, "description": "4 up, then 3", "text": SCENARIO},
              token=stack.teacher_token)

    login(page)
    replace_editor_text(page, APP)
    page.get_by_test_id("run-churn").select_option(label=name)
    # the scenario decides the nodes and the duration
    expect(page.get_by_test_id("run-nodes")).to_have_value("")
    expect(page.get_by_test_id("run-duration")).to_have_value("")
    expect(page.get_by_test_id("run-keep-population")).not_to_be_checked()
    page.get_by_test_id("run-button").click()
    page.wait_for_url(re.compile(r"/jobs/\d+"))

    panel = page.get_by_test_id("churn-panel")
    expect(panel).to_be_visible()
    expect(page.get_by_test_id("churn-facts")).to_contain_text(name)
    expect(page.get_by_test_id("churn-facts")).to_contain_text("keep population off")
    expect(page.get_by_test_id("churn-plot").locator("canvas")).to_be_visible()
    expect(page.get_by_test_id("churn-plot")).to_contain_text("planned")  # the legend names both curves
    expect(page.get_by_test_id("churn-plot")).to_contain_text("actual")

    actual = page.get_by_test_id("churn-actual-count")
    expect(actual).to_have_text("4", timeout=30_000)
    expect(actual).to_have_text("3", timeout=15_000)
    # the scenario's four positions, no spare (keep population off), and no failure
    expect(page.get_by_test_id("instances-table").locator("tbody tr[data-node]")).to_have_count(4)
    expect(page.get_by_test_id("churn-failure-count")).to_have_text("0")
    # the planned curve: the plan's population from 8 s on
    expect(page.get_by_test_id("churn-planned-count")).to_have_text("3", timeout=15_000)
    # the metric time series shares the population's x axis: seconds since the scenario start
    expect(page.get_by_test_id("metric-timeseries")).to_have_attribute(
        "aria-label", re.compile(r" over seconds since the scenario start \(\d+ s windows\)$"))


def test_a_simulated_churn_run_is_drawn_to_its_virtual_end(page: Page, stack) -> None:
    """A simulation runs faster than real time: its population is drawn, and counted "at the
    end", up to the scenario's virtual stop (14 s), not up to the wall time it took."""
    name = f"browser churn sim {uuid.uuid4().hex[:6]}"
    stack.api("POST", "/api/scenarios/", {"name": name, "description": "4 up, then 3", "text": SCENARIO},
              token=stack.teacher_token)
    login(page)
    replace_editor_text(page, APP)
    page.get_by_test_id("run-churn").select_option(label=name)
    page.get_by_label("Simulate", exact=True).check()
    page.get_by_test_id("run-button").click()
    page.wait_for_url(re.compile(r"/jobs/\d+"))

    expect(page.get_by_test_id("job-state")).to_have_text("ENDED", timeout=30_000)
    counts = page.get_by_test_id("churn-panel").locator(".churn-counts")
    expect(counts).to_contain_text("at the end")
    expect(counts).to_contain_text("t = 14 s")
    expect(page.get_by_test_id("churn-actual-count")).to_have_text("3")
    expect(page.get_by_test_id("churn-planned-count")).to_have_text("3")
