"""The regrade forms of a submission's report are laid out as forms: the question above a box as
wide as the card, the button under it (the student's ask), and the staff's answer box as wide too.
Left to the browser's defaults they ran on one line: the question, a small textarea, the button."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Page, expect

from test_workspace_ui import login

pytestmark = [pytest.mark.stack, pytest.mark.browser]

DEMO_COURSE = "distributed-systems-demo"
SLUG = "regrade-form"
SPEC = {"title": "Regrade form", "summary": "a tiny assignment for the regrade forms",
        "runs": [{"name": "only", "mode": "sim", "nodes": 2, "time": 3, "seed": 1}],
        "checks": [{"name": "No node raises an error", "check": "no_runtime_errors", "run": "only"}]}
GRADING_TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def submission(stack, tmp_path_factory) -> dict:
    """A graded submission of the student to a tiny assignment of the demo course."""
    folder: Path = tmp_path_factory.mktemp("assignment") / SLUG
    for part in ("starter", "reference"):
        (folder / part).mkdir(parents=True)
        (folder / part / "app.lua").write_text("print('fine')\n")
    (folder / "harness.lua").write_text("local h = ...\n")
    (folder / "README.md").write_text("# Regrade form\n")
    (folder / "assignment.yaml").write_text(yaml.safe_dump(SPEC))
    assert f"{DEMO_COURSE}/{SLUG}" in stack.manage("assignments_load", "--course", DEMO_COURSE, str(folder))
    [course] = [c for c in stack.api("GET", "/api/courses/", token=stack.teacher_token) if c["slug"] == DEMO_COURSE]
    stack.api("PATCH", f"/api/courses/{course['id']}/assignments/{SLUG}/", {"published": True, "deadline": None},
              token=stack.teacher_token)
    return stack.api("POST", f"/api/courses/{course['id']}/assignments/{SLUG}/submissions/", {"source": "print('hi')\n"})


def box(page: Page, test_id: str) -> dict:
    found = page.get_by_test_id(test_id).bounding_box()
    assert found is not None, test_id
    return found


def test_the_regrade_forms_stack_their_question_box_and_button(page: Page, stack, submission) -> None:
    login(page)
    page.goto(f"/submissions/{submission['id']}")
    expect(page.get_by_test_id("submission-status")).to_have_text("graded", timeout=GRADING_TIMEOUT_MS)
    card, message = box(page, "regrade-requests"), box(page, "regrade-message")
    # The label holds the question's text, then the box: the box starts a line below the label.
    question = page.get_by_text("Ask the course staff to look at this grading again").bounding_box()
    assert question is not None
    assert message["y"] >= question["y"] + 10  # the box under its question
    assert message["width"] >= 0.8 * card["width"]  # as wide as the card, not a small inline box
    page.get_by_test_id("regrade-message").fill("The run was too short to judge.")
    ask = box(page, "regrade-ask")
    assert ask["y"] >= message["y"] + message["height"] - 1  # the button under the box
    page.get_by_test_id("regrade-ask").click()
    expect(page.get_by_test_id("regrade-request")).to_contain_text("The run was too short to judge.")

    page.context.clear_cookies()
    login(page, "teacher", "teacher-demo")
    page.goto(f"/submissions/{submission['id']}")
    answer = box(page, "regrade-answer-text")
    assert answer["width"] >= 0.8 * box(page, "regrade-requests")["width"]
