"""Layouts a new user hit at common window sizes (issue 22, point 8), in a real browser: the
run bar keeps every label on the row of its field at 1440 px, and the teacher's header (the
most links) stays inside an 800 px window."""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login

pytestmark = [pytest.mark.stack, pytest.mark.browser]


def _same_row(page: Page, label_for: str) -> None:
    label = page.locator(f'.run-bar label[for="{label_for}"]').bounding_box()
    field = page.locator(f"#{label_for}").bounding_box()
    assert label and field
    # the label's vertical middle lies within its field's box: one row
    middle = label["y"] + label["height"] / 2
    assert field["y"] <= middle <= field["y"] + field["height"], (label_for, label, field)
    assert label["x"] < field["x"]


@pytest.mark.parametrize("width", [1440, 1280, 1024])
def test_run_bar_labels_stay_with_their_fields(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    login(page)
    expect(page.get_by_test_id("run-loss")).to_be_visible()
    for field in ("run-nodes", "run-duration", "run-network", "run-loss"):
        _same_row(page, field)


def test_the_teachers_header_fits_an_800_px_window(page: Page) -> None:
    page.set_viewport_size({"width": 800, "height": 700})
    login(page, "teacher", "teacher-demo")
    header = page.locator("header.app-header")
    expect(header.get_by_role("link", name="Gradebook")).to_be_visible()
    links = header.locator("a, button")
    for i in range(links.count()):
        box = links.nth(i).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 800, (links.nth(i).inner_text(), box)
    # nothing scrolls sideways
    assert page.evaluate("document.documentElement.scrollWidth") <= 800
