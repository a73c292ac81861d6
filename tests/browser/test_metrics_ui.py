"""The job page's measurement view in a real browser: a live CDF of an observed metric, its
time series, the per-node counters, the network model of the run, the hop histogram, and the
overlay of another run drawn from the controller's aggregate."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login, replace_editor_text, run

pytestmark = [pytest.mark.stack, pytest.mark.browser]

# Each node observes one latency sample every 0.25 s for ~8 s, with a hop count.
APP = """require "splay.base"
local metrics = require "splay.metrics"
events.run(function()
  for i = 1, 32 do
    metrics.observe("lookup_latency", 0.01 * (1 + (i + job.position) % 10), {hops = 1 + i % 4})
    events.sleep(0.25)
  end
  events.exit()
end)
"""


def sample_count(page: Page) -> int:
    text = page.get_by_test_id("metric-count").inner_text()
    m = re.fullmatch(r"n = (\d+)", text.strip())
    assert m, text
    return int(m.group(1))


def test_the_cdf_appears_and_grows_while_the_job_runs(page: Page) -> None:
    login(page)
    replace_editor_text(page, APP)
    page.get_by_test_id("run-network").select_option("const:50ms")
    run(page, nodes=3, duration=30)

    expect(page.get_by_test_id("job-network")).to_have_text("const:50ms")
    plot = page.get_by_test_id("cdf-plot")
    expect(plot.locator("canvas")).to_be_visible(timeout=20_000)
    expect(page.get_by_test_id("metric-select")).to_have_value("lookup_latency")
    first = sample_count(page)
    page.wait_for_function(
        f"() => Number(document.querySelector('[data-testid=metric-count]').textContent.split('= ')[1]) > {first}",
        timeout=15_000)
    # the whole run: 3 nodes x 32 samples; the axis is in ms, the hops histogram has 4 bars
    expect(page.get_by_test_id("metric-count")).to_have_text("n = 96", timeout=30_000)
    expect(plot).to_contain_text("lookup_latency (ms)")
    expect(page.get_by_test_id("hop-histogram").locator(".hop-row")).to_have_count(4)
    # every node of the job has its row, sorted by node, with its 32 samples
    counters = page.get_by_test_id("node-counters")
    expect(counters.locator("tbody tr td:first-child")).to_have_text(["1", "2", "3"])
    expect(counters.locator("tbody tr td:nth-child(2)")).to_have_text(["32", "32", "32"])
    # the time series (p50 line, p10-p90 band) is drawn, its x axis in seconds
    series = page.get_by_test_id("metric-timeseries")
    expect(series.locator("canvas")).to_be_visible()
    expect(series).to_have_attribute("aria-label", re.compile(r" over seconds since the first sample \(\d+ s windows\)$"))
    expect(series.locator(".u-legend")).to_contain_text("p50")
    # the legend names x briefly (the axis label, drawn on the canvas, says what it counts from)
    expect(series.locator(".u-legend .u-series").first).to_contain_text("time (s)")
    expect(series.locator(".u-legend")).not_to_contain_text("seconds since")


def test_overlaying_another_run_draws_two_curves(page: Page) -> None:
    login(page)
    replace_editor_text(page, APP)
    page.get_by_test_id("run-network").select_option("king")
    run(page, nodes=2, duration=30)
    first = int(re.search(r"/jobs/(\d+)", page.url).group(1))
    expect(page.get_by_test_id("metric-count")).to_have_text("n = 64", timeout=30_000)

    page.goto("/")
    expect(page.get_by_test_id("editor").locator(".monaco-editor")).to_be_visible()
    replace_editor_text(page, APP)
    run(page, nodes=2, duration=30)
    second = int(re.search(r"/jobs/(\d+)", page.url).group(1))
    expect(page.get_by_test_id("cdf-plot").locator("canvas")).to_be_visible(timeout=20_000)

    page.get_by_test_id("compare-job").fill(str(first))
    legend = page.get_by_test_id("cdf-plot").locator(".u-legend")
    # one curve per run (plus uPlot's x row), each named by job, code version and network model;
    # [^#]* keeps each match inside one run's label
    expect(legend.locator(".u-series")).to_have_count(3, timeout=15_000)
    expect(legend).to_contain_text(re.compile(rf"job #{second}\b[^#]*code [0-9a-f]{{8}}[^#]*lan"))
    expect(legend).to_contain_text(re.compile(rf"job #{first}\b[^#]*code [0-9a-f]{{8}}[^#]*king"))
