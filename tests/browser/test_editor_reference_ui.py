"""The SPLAY API reference page (issue 22, point 1), in a real browser: every public module
of the API description with its functions' signatures and docs, searchable."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login

pytestmark = [pytest.mark.stack, pytest.mark.browser]

API = json.loads((Path(__file__).resolve().parents[2] / "sandbox" / "splay_api.json").read_text())
MODULES = {m["name"]: m for m in API["modules"]}


def test_the_api_reference_lists_and_finds_splay_functions(page: Page) -> None:
    login(page)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="SPLAY API").click()
    expect(page.get_by_role("heading", name="SPLAY API", exact=True)).to_be_visible()
    for name in MODULES:
        expect(page.get_by_test_id(f"api-module-{name}")).to_have_count(1)
    events = page.get_by_test_id("api-module-events")
    public = [f for f in MODULES["events"]["functions"] if not f.get("internal")]
    expect(events.get_by_test_id("api-function")).to_have_count(len(public))
    sleep = next(f for f in public if f["name"] == "sleep")
    entry = events.locator('[id="events.sleep"]')
    expect(entry).to_contain_text("events.sleep(")
    expect(entry).to_contain_text(sleep["doc"])
    expect(events).not_to_contain_text("wait_socket")  # the runtime's plumbing

    page.get_by_test_id("api-search").fill("rpc.call")
    rpc = page.get_by_test_id("api-module-rpc")
    expect(rpc.locator('[id="rpc.call"]')).to_contain_text("rpc.call(")
    expect(rpc.locator('[id="rpc.server"]')).to_have_count(0)  # only what matches
    expect(page.get_by_test_id("api-module-log")).to_have_count(0)

    page.get_by_test_id("api-search").fill("no such function anywhere")
    expect(page.get_by_test_id("api-none")).to_be_visible()
