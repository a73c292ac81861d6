"""Run history in a real browser (issue 22 point 4, docs/editor.md "Run history"): a run is named
by its owner, run again with its code and every setting, its code diffed with another run's,
and other runs picked from a list to overlay their CDFs."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login

pytestmark = [pytest.mark.stack, pytest.mark.browser]

APP = """require "splay.base"
local metrics = require "splay.metrics"
events.run(function()
  for i = 1, 5 do metrics.observe("wait", {version} * i / 10); events.sleep(0.5) end
end)
"""


def simulate(stack, version: int, **extra) -> dict:
    job = stack.api("POST", "/api/jobs/", {"code": APP.replace("{version}", str(version)), "nodes": 3, "duration": 5,
                                           "mode": "sim", "seed": 11, "network": {"net": "jitter:20ms:5ms"}, **extra})
    return stack.wait_job(job["id"], {"ENDED"}, timeout=60)


def test_name_rerun_diff_and_compare_runs(page: Page, stack) -> None:
    first = simulate(stack, 1, name="first try")
    second = simulate(stack, 2)
    login(page)

    # name the second run
    page.goto(f"/jobs/{second['id']}")
    page.get_by_test_id("run-rename").click()
    page.get_by_test_id("run-name-input").fill("doubled waits")
    page.get_by_test_id("run-name-save").click()
    expect(page.locator(".job-summary h1")).to_contain_text("doubled waits")
    assert stack.api("GET", f"/api/jobs/{second['id']}/")["name"] == "doubled waits"

    # run it again: a new job with its code and settings
    page.get_by_test_id("run-again").click()
    page.wait_for_url(re.compile(rf"/jobs/(?!{second['id']}\b)\d+$"))
    third_id = int(page.url.rsplit("/", 1)[-1])
    third = stack.wait_job(third_id, {"ENDED"}, timeout=60)
    same = ("name", "code", "nodes", "duration", "network", "mode", "seed")
    assert {k: third[k] for k in same} == {k: stack.api("GET", f"/api/jobs/{second['id']}/")[k] for k in same}

    # its code against the first run's: the diff editor marks the changed line
    diff_with = page.get_by_test_id("diff-with")
    expect(diff_with.locator("option", has_text="first try")).to_have_count(1)
    diff_with.select_option(str(first["id"]))
    diff = page.get_by_test_id("code-diff")
    expect(diff.locator(".monaco-diff-editor")).to_be_visible(timeout=20_000)
    expect(diff.locator(".modified-in-monaco-diff-editor .view-lines:not(.line-delete)")).to_contain_text("2 * i / 10")
    expect(diff.locator(".original-in-monaco-diff-editor .view-lines:not(.line-insert)")).to_contain_text("1 * i / 10")
    expect(diff.locator(".line-insert, .char-insert").first).to_be_attached()
    diff_with.select_option(str(second["id"]))
    expect(page.get_by_test_id("diff-same")).to_have_text("the same code")

    # compare: pick the first run from the list, its CDF joins this run's
    expect(page.get_by_test_id("cdf-plot").locator("canvas")).to_be_visible(timeout=20_000)
    page.get_by_test_id("compare-pick").select_option(str(first["id"]))
    expect(page.get_by_test_id("compare-job")).to_have_value(str(first["id"]))
    legend = page.get_by_test_id("cdf-plot").locator(".u-legend")
    expect(legend.locator(".u-series")).to_have_count(3, timeout=15_000)
    expect(legend).to_contain_text(re.compile(rf"job #{first['id']}\b"))
