"""A student's page hears their submissions change status (/ws/submissions/, grading.live;
docs/grading.md "Status pushes"), in a real browser against the real stack: with no
submission pending, the assignment page's list polls nothing, so a submission made elsewhere (another
tab: here the API) can only appear there, and reach its grade, by the server's push."""
from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, WebSocket, expect

from test_workspace_ui import login

pytestmark = [pytest.mark.stack, pytest.mark.browser]

GRADING_TIMEOUT_MS = 240_000


def test_a_submission_made_elsewhere_appears_and_is_graded_by_push(page: Page, stack) -> None:
    (demo,) = [c for c in stack.api("GET", "/api/courses/", token=stack.teacher_token)
               if c["slug"] == "distributed-systems-demo"]
    token = stack.user_create("push-ui-student")
    stack.api("POST", "/api/courses/join/", {"code": demo["join_code"]}, token=token)

    frames: list[dict] = []

    def on_socket(ws: WebSocket) -> None:
        if ws.url.endswith("/ws/submissions/"):
            ws.on("framereceived", lambda payload: frames.append(json.loads(payload)))
    page.on("websocket", on_socket)

    login(page, "push-ui-student", "pw-push-ui-student")
    page.goto(f"/courses/{demo['id']}/assignments/chord")
    expect(page.get_by_role("region", name="Your submissions")).to_contain_text("None yet.")
    # the socket says whose submissions it brings once it is open
    for _ in range(100):
        if {"type": "submission.watch", "student": "push-ui-student"} in frames:
            break
        page.wait_for_timeout(100)
    assert {"type": "submission.watch", "student": "push-ui-student"} in frames, frames

    made = stack.api("POST", f"/api/courses/{demo['id']}/assignments/chord/submissions/",
                     {"source": "-- made in another tab\n"}, token=token)
    item = page.locator(f'[data-testid="submission-item"][data-submission-id="{made["id"]}"]')
    expect(item).to_be_visible(timeout=10_000)   # no poll was running: the push brought it
    expect(item).to_have_attribute("data-status", "graded", timeout=GRADING_TIMEOUT_MS)
    statuses = [f["submission"]["status"] for f in frames
                if f.get("type") == "submission.status" and f["submission"]["id"] == made["id"]]
    assert statuses[0] == "queued" and statuses[-1] == "graded", statuses
    assert all(f.get("type") in ("submission.watch", "submission.status") for f in frames), frames
