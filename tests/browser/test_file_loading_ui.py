"""Run and Submit while the editor's file is still coming from the server: the buttons used to look
ready and do nothing when pressed (the click was dropped), so a newcomer who clicked at once saw
nothing happen. They now say "Loading…" and are disabled until the file is there, then work.

The workspace requests are held in the browser (page.route) to make the loading window last."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, Route, expect

from test_workspace_ui import login

pytestmark = [pytest.mark.stack, pytest.mark.browser]

DEMO_COURSE = "distributed-systems-demo"
WORKSPACES = re.compile(r"/api/workspaces/")


class HeldRequests:
    """Every request for a workspace waits here until release(); later ones pass at once."""

    def __init__(self, page: Page) -> None:
        self.routes: list[Route] = []
        self.released = False
        page.route(WORKSPACES, self.handle)

    def handle(self, route: Route) -> None:
        if self.released:
            route.continue_()
        else:
            self.routes.append(route)

    def release(self) -> None:
        self.released = True
        while self.routes:
            self.routes.pop(0).continue_()


def test_run_waits_for_the_file_then_starts_the_job(page: Page) -> None:
    login(page)
    held = HeldRequests(page)
    page.goto("/")
    button = page.get_by_test_id("run-button")
    expect(button).to_have_text("Loading…")
    expect(button).to_be_disabled()
    expect(button).to_have_attribute("title", "The file is still loading")
    assert held.routes, "the workspace page asked for no workspace"

    held.release()
    expect(button).to_have_text("▶ Run")
    expect(button).to_be_enabled()
    page.get_by_label("Simulate").check()
    page.get_by_test_id("run-nodes").fill("2")
    page.get_by_test_id("run-duration").fill("5")
    button.click()
    page.wait_for_url(re.compile(r"/jobs/\d+$"))


def test_submit_waits_for_the_file(page: Page, stack) -> None:
    [course] = [c for c in stack.api("GET", "/api/courses/") if c["slug"] == DEMO_COURSE]
    login(page)
    held = HeldRequests(page)
    page.goto(f"/courses/{course['id']}/assignments/chord")
    button = page.get_by_test_id("submit-button")
    expect(button).to_have_text("Loading…")
    expect(button).to_be_disabled()
    assert held.routes, "the assignment page asked for no workspace"

    held.release()
    # Not pressed: a submission would be graded and count against the rate limit other tests meet.
    expect(button).to_have_text("Submit for grading")
    expect(button).to_be_enabled()
