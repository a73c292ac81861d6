"""What a student cannot see in the UI (docs/decisions.md, "Grading"): another student's
submission and report, the gradebook, the assignment editor, and the reference solution anywhere
on the assignment's page; the API refuses the same (404 / 403)."""
from __future__ import annotations

import json
import re
import urllib.error
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login

pytestmark = [pytest.mark.stack, pytest.mark.browser]

CHORD = Path(__file__).resolve().parents[2] / "assignments" / "chord"
# a line only the reference has (its first comment)
REFERENCE_MARK = "the reference solution. Instructors only."


def api_status(stack, path: str, token: str) -> int:
    try:
        stack.api("GET", path, token=token)
        return 200
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_student_sees_neither_others_work_nor_the_gradebook_nor_the_reference(page: Page, stack) -> None:
    assert REFERENCE_MARK in (CHORD / "reference" / "app.lua").read_text()
    (demo,) = [c for c in stack.api("GET", "/api/courses/", token=stack.teacher_token)
               if c["slug"] == "distributed-systems-demo"]
    # two fresh students of the demo course (nothing of earlier tests in their workspaces)
    other, viewer = stack.user_create("other-ui-student"), stack.user_create("viewer-ui-student")
    for token in (other, viewer):
        stack.api("POST", "/api/courses/join/", {"code": demo["join_code"]}, token=token)
    theirs = stack.api("POST", f"/api/courses/{demo['id']}/assignments/chord/submissions/",
                       {"source": "-- their own work, secret\n"}, token=other)

    # the API: 404 for their submission, 403 for the gradebook, no reference in the assignment
    assert api_status(stack, f"/api/submissions/{theirs['id']}/", viewer) == 404
    assert api_status(stack, f"/api/courses/{demo['id']}/gradebook/", viewer) == 403
    detail = stack.api("GET", f"/api/courses/{demo['id']}/assignments/chord/", token=viewer)
    assert "reference" not in detail and REFERENCE_MARK not in json.dumps(detail)

    login(page, "viewer-ui-student", "pw-viewer-ui-student")
    page.goto(f"/submissions/{theirs['id']}")
    expect(page.get_by_role("alert")).to_contain_text(f"Cannot load submission #{theirs['id']}. Not found.")
    assert "their own work, secret" not in page.content()

    page.goto(f"/courses/{demo['id']}/gradebook")
    expect(page.get_by_role("alert")).to_contain_text("Cannot load the gradebook.")
    expect(page.get_by_test_id("gradebook-row")).to_have_count(0)
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link", name="Gradebook")).to_have_count(0)

    page.goto(f"/courses/{demo['id']}/assignments/chord")
    expect(page.get_by_test_id("handout")).to_be_visible()
    assert REFERENCE_MARK not in page.content()
    expect(page.get_by_role("link", name=re.compile(r"^Edit"))).to_have_count(0)
