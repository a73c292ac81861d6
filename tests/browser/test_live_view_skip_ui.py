"""A live view too far behind (backend logs/outbox.py): the server skips its lines and tells the
page which; the page says how many lines were skipped live and shows them all the same, fetched
from the REST log. A stack of its own whose viewers may hold 1 byte of backlog and get a frame a
second: the batches that come within that second are skipped. Needs `make frontend` and the
stack lock, like every browser test."""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from stack_helpers import RunningStack, running_stack
from test_workspace_ui import login

pytestmark = pytest.mark.stack

SKIP_PORT = 8792
APP = """require "splay.base"
events.run(function()
  events.sleep(3) -- the page is open and listening by then
  for i = 1, 30 do print("skipped live " .. job.position .. " " .. i); events.sleep(0.05) end
end)
"""


@pytest.fixture(scope="module")
def skipping_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    with running_stack(tmp_path_factory.mktemp("skip-stack"), SKIP_PORT, "splaylab_it_skip", 3, daemons=1,
                       extra_env={"SPLAYLAB_VIEW_BACKLOG_BYTES": "1", "SPLAYLAB_VIEW_FRAME_SECONDS": "1"}) as s:
        yield s


def test_the_page_says_lines_were_skipped_live_and_shows_them_from_the_log(chromium, skipping_stack) -> None:
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, base_url=skipping_stack.url)
    context.set_default_timeout(20_000)
    page: Page = context.new_page()
    try:
        login(page)
        job = skipping_stack.api("POST", "/api/jobs/", {"code": APP, "nodes": 2, "duration": 30})
        page.goto(f"/jobs/{job['id']}")
        lines = page.get_by_test_id("log-line")
        skipping_stack.wait_job(job["id"], {"ENDED"}, timeout=60)
        expect(page.get_by_test_id("log-skipped")).to_contain_text("skipped live")
        for node in (1, 2):
            expect(lines.filter(has_text=re.compile(rf"^.*skipped live {node} \d+$"))).to_have_count(30)
        skipped = int(page.get_by_test_id("log-skipped").inner_text().split()[0])
        assert 0 < skipped <= 60
    finally:
        context.close()
