"""Simulated runs in a real browser (docs/simulation.md): the run bar's Simulate choice with a
seed sends the job to the simulation worker; the job is marked simulated (with its seed) on its
page and in the job list, and its nodes' lines arrive in the usual log view."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login, replace_editor_text

pytestmark = [pytest.mark.stack, pytest.mark.browser]

# Node k waits k virtual seconds, prints one line and ends.
APP = """require "splay.base"
events.run(function()
  events.sleep(job.position)
  log.print("simulated hello from " .. job.position)
end)
"""


def test_simulate_with_a_seed_runs_on_the_virtual_clock_and_is_marked_simulated(page: Page, stack) -> None:
    login(page)
    replace_editor_text(page, APP)
    page.get_by_label("Simulate", exact=True).check()
    expect(page.get_by_test_id("run-nodes-limit")).to_have_text("max 10,000")
    seed = page.get_by_test_id("run-seed")
    expect(seed).to_have_value("1")  # the default
    seed.fill("7")
    page.get_by_test_id("run-nodes").fill("3")
    page.get_by_test_id("run-duration").fill("10")
    expect(page.get_by_test_id("run-button")).to_have_text("▶ Simulate")
    page.get_by_test_id("run-button").click()
    page.wait_for_url(re.compile(r"/jobs/\d+"))
    job_id = int(page.url.rstrip("/").rsplit("/", 1)[-1])

    expect(page.get_by_test_id("job-state")).to_have_text("ENDED", timeout=30_000)
    badge = page.get_by_test_id("job-sim-badge")
    expect(badge).to_contain_text("simulated")
    expect(badge).to_contain_text("seed 7")
    expect(page.get_by_test_id("job-mode")).to_have_text("simulated, seed 7")
    expect(page.get_by_test_id("job-sim-progress")).to_have_count(0)  # shown only while running

    lines = page.get_by_test_id("log-line")
    for k in (1, 2, 3):
        expect(lines.filter(has_text=f"simulated hello from {k}")).to_have_count(1)
    assert {lines.nth(i).get_attribute("data-node") for i in range(lines.count())} == {"1", "2", "3"}
    # Stamped with virtual time from the simulation's start (node k printed at k virtual
    # seconds), not a time of day that would fall after the job's real end.
    for k in (1, 3):
        stamp = lines.filter(has_text=f"simulated hello from {k}").locator(".log-time")
        expect(stamp).to_have_text(re.compile(rf"^\+00:0{k}\.\d{{3}}$"))

    job = stack.api("GET", f"/api/jobs/{job_id}/")
    assert (job["mode"], job["seed"], job["nodes"], job["duration"]) == ("sim", 7, 3, 10)
    assert job["progress"]["virtual_t"] > 0

    # The workspace's job list marks it too.
    page.goto("/")
    item = page.locator(f'[data-testid="job-list-item"][data-job-id="{job_id}"]')
    expect(item.get_by_test_id("job-list-sim")).to_have_text(re.compile(r"simulated\s*seed 7"))


def test_keep_population_is_disabled_while_simulate_is_chosen(page: Page) -> None:
    login(page)
    keep = page.get_by_test_id("run-keep-population")
    keep.check()
    expect(page.get_by_test_id("run-seed")).to_have_count(0)  # Run live has no seed
    expect(page.get_by_test_id("run-nodes-limit")).to_have_text("max 1,000")

    page.get_by_label("Simulate", exact=True).check()
    expect(keep).to_be_disabled()
    expect(keep).not_to_be_checked()
    expect(keep).to_have_attribute("title", re.compile("not simulated"))
    expect(page.get_by_test_id("run-seed")).to_be_visible()

    # Back to Run live: the control and the earlier choice come back.
    page.get_by_label("Run live", exact=True).check()
    expect(keep).to_be_enabled()
    expect(keep).to_be_checked()
    expect(page.get_by_test_id("run-seed")).to_have_count(0)
