"""Grading feedback in a real browser (issue 22 point 6, docs/grading.md "The report page"), on a
tiny assignment of the demo course (a visible simulated run of 3 nodes and a hidden one of 2):
the student reads the report's logs of the visible run (never the hidden run), runs the grader's
setup from the report (the run bar opens with its settings and the harness ticked), reads a final
grade that is withheld, not different, while it counts a hidden check and there is no deadline
(and no "after the deadline" anywhere), then the instructor's override and comment on the report
and on the course page, equal to the gradebook's cell; after a deadline has passed, the
submission's own final score, equal to the gradebook's."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Page, expect

from test_workspace_ui import login

pytestmark = [pytest.mark.stack, pytest.mark.browser]

DEMO_COURSE = "distributed-systems-demo"
SLUG = "feedback"
SPEC = {
    "title": "Feedback",
    "summary": "a tiny assignment for the report's feedback",
    "runs": [{"name": "shown", "mode": "sim", "nodes": 3, "time": 5, "seed": 4, "net": "king"},
             {"name": "secret", "mode": "sim", "nodes": 2, "time": 5, "seed": 5}],
    "checks": [{"name": "Within the limits", "check": "within_limits", "run": "shown"},
               {"name": "No node raises an error", "check": "no_runtime_errors", "run": "shown"},
               {"name": "The secret run is clean", "check": "no_runtime_errors", "run": "secret", "weight": 2,
                "hidden": True}],
}
# Node 3 fails: the visible run (3 nodes) loses its error check, the hidden one (2 nodes) passes.
# Score 75 (3 of 4 points); the visible checks' share 50.
APP = ("print('hello from node ' .. job.position)\n"
       "if job.position == 3 then error('node three gives up') end\n")
GRADING_TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def feedback(stack, tmp_path_factory) -> dict:
    """The tiny assignment loaded into the demo course (as an instructor does with a folder),
    published, without a deadline."""
    folder = tmp_path_factory.mktemp("assignment") / SLUG
    (folder / "starter").mkdir(parents=True)
    (folder / "reference").mkdir()
    (folder / "starter" / "app.lua").write_text("-- your code here\n")
    (folder / "reference" / "app.lua").write_text("print('fine')\n")
    (folder / "harness.lua").write_text("local h = ...\n")
    (folder / "README.md").write_text("# Feedback\n")
    (folder / "assignment.yaml").write_text(yaml.safe_dump(SPEC))
    assert f"{DEMO_COURSE}/{SLUG}" in stack.manage("assignments_load", "--course", DEMO_COURSE, str(folder))
    [course] = [c for c in stack.api("GET", "/api/courses/", token=stack.teacher_token) if c["slug"] == DEMO_COURSE]
    stack.api("PATCH", f"/api/courses/{course['id']}/assignments/{SLUG}/", {"published": True, "deadline": None},
              token=stack.teacher_token)
    return course


def gradebook_score(stack, course_id: int) -> float | None:
    book = stack.api("GET", f"/api/courses/{course_id}/gradebook/", token=stack.teacher_token)
    [row] = [r for r in book["rows"] if r["student"]["username"] == "student"]
    [cell] = [c for c in row["cells"] if c["assignment"] == SLUG]
    return cell["score"]


def test_the_report_shows_logs_setup_and_the_gradebooks_final_grade(page: Page, stack, feedback) -> None:
    course_id = feedback["id"]
    submission = stack.api("POST", f"/api/courses/{course_id}/assignments/{SLUG}/submissions/", {"source": APP})
    login(page)
    page.goto(f"/submissions/{submission['id']}")
    expect(page.get_by_test_id("submission-status")).to_have_attribute("data-status", "graded",
                                                                       timeout=GRADING_TIMEOUT_MS)
    expect(page.get_by_test_id("submission-score")).to_have_text("50 / 100 on the visible checks")

    # No deadline: the page never speaks of one, and the grade counting the hidden check is withheld.
    expect(page.get_by_test_id("hidden-withheld")).to_have_text(
        "1 hidden check is not shown: this assignment has no deadline, so this score counts the visible checks only.")
    expect(page.get_by_test_id("final-grade")).to_have_text(
        "Final grade not shown: it counts 1 hidden check, which this assignment (no deadline) keeps hidden")
    assert "after the deadline" not in page.locator("body").inner_text()
    assert gradebook_score(stack, course_id) == 75.0

    # The visible run only, its logs collapsed; opened, drawn like the job log.
    expect(page.get_by_test_id("report-run")).to_have_count(1)
    expect(page.get_by_test_id("report-run")).to_contain_text("sim, 3 nodes, 5 s, seed 4, net king")
    assert "secret" not in page.locator("body").inner_text()
    logs = page.get_by_test_id("report-run-logs")
    expect(logs).to_have_count(1)
    expect(logs.locator("summary")).to_have_text(re.compile(r"^Logs of run shown \(\d+ lines, [1-9]\d* errors?\)$"))
    expect(logs.get_by_test_id("log-line")).to_have_count(0)   # collapsed
    logs.locator("summary").click()
    lines = logs.get_by_test_id("log-line")
    for k in (1, 2, 3):
        line = lines.filter(has_text=f"hello from node {k}")
        expect(line).to_have_count(1)
        expect(line).to_have_attribute("data-node", str(k))
        expect(line.locator(".log-level")).to_have_text("PRINT")
    failure = lines.filter(has_text="node three gives up").first
    expect(failure).to_have_attribute("data-level", "error")
    expect(failure.locator(".log-node")).to_have_text("n3")
    expect(failure.locator(".log-time")).to_have_text(re.compile(r"^\+00:00\.\d{3}$"))
    expect(lines.filter(has_text="node ended: ended with exit code 1")).to_have_count(1)

    # Run the grader's setup: the assignment page's run bar with the run's settings.
    page.get_by_test_id("run-grader-setup").click()
    page.wait_for_url(re.compile(rf"/courses/{course_id}/assignments/{SLUG}\?setup=shown&"))
    note = page.get_by_test_id("grader-setup-note")
    expect(note).to_contain_text(f"The grader's run shown (from submission #{submission['id']}): "
                                 "sim, 3 nodes, 5 s, seed 4, net king, with the grader's harness.")
    expect(page.get_by_test_id("run-mode-sim")).to_be_checked()
    expect(page.get_by_test_id("run-nodes")).to_have_value("3")
    expect(page.get_by_test_id("run-duration")).to_have_value("5")
    expect(page.get_by_test_id("run-seed")).to_have_value("4")
    expect(page.get_by_test_id("run-network")).to_have_value("king")
    expect(page.get_by_test_id("run-with-harness")).to_be_checked()
    expect(page.get_by_test_id("editor").locator(".monaco-editor")).to_be_visible()
    expect(page.get_by_test_id("save-status")).to_have_text("saved")
    page.get_by_test_id("run-button").click()
    page.wait_for_url(re.compile(r"/jobs/\d+"))
    job_id = int(page.url.rstrip("/").rsplit("/", 1)[-1])
    expect(page.get_by_test_id("job-harness")).to_contain_text("Feedback")
    expect(page.get_by_test_id("job-network")).to_have_text("king")
    job = stack.api("GET", f"/api/jobs/{job_id}/")
    assert (job["mode"], job["seed"], job["nodes"], job["duration"]) == ("sim", 4, 3, 5)

    # A link with bad settings says what is wrong and leaves the run bar as it is.
    page.goto(f"/courses/{course_id}/assignments/{SLUG}?setup=shown&mode=sim&nodes=lots&time=5&seed=4")
    expect(page.get_by_test_id("grader-setup-error")).to_have_text(
        "This link's run settings are not valid: nodes \"lots\" is not a whole number from 1 to 10000. "
        "The run bar keeps its own.")
    expect(page.get_by_test_id("run-nodes")).to_have_value("10")

    # The instructor overrides the grade with a comment: the student reads both, as the gradebook has them.
    grade_url = f"/api/courses/{course_id}/gradebook/{SLUG}/{stack.api('GET', '/api/auth/me/')['id']}/"
    stack.api("PUT", grade_url, {"score": 85, "comment": "the run was unlucky"}, token=stack.teacher_token)
    assert gradebook_score(stack, course_id) == 85.0
    override = 'Final grade 85 / 100 (override by teacher: "the run was unlucky")'
    page.goto(f"/submissions/{submission['id']}")
    expect(page.get_by_test_id("final-grade")).to_have_text(override)
    page.goto(f"/courses/{course_id}")
    item = page.locator(f'[data-testid="assignment-item"][data-slug="{SLUG}"]')
    expect(item.get_by_test_id("assignment-grade")).to_have_text(override)
    expect(item.locator(".assignment-deadline")).to_have_text("No deadline")

    # Without the override and once a deadline has passed: the submission's final score, the gradebook's.
    stack.api("DELETE", grade_url, token=stack.teacher_token)
    passed = (datetime.now(timezone.utc) - timedelta(minutes=1)).isoformat()
    stack.api("PATCH", f"/api/courses/{course_id}/assignments/{SLUG}/", {"deadline": passed}, token=stack.teacher_token)
    try:
        page.reload()
        expect(item.get_by_test_id("assignment-grade")).to_have_text(f"Final grade 75 / 100 (submission #{submission['id']})")
        assert gradebook_score(stack, course_id) == 75.0
        page.goto(f"/submissions/{submission['id']}")
        expect(page.get_by_test_id("submission-score")).to_have_text("75 / 100")
        expect(page.get_by_test_id("hidden-withheld")).to_have_count(0)
        expect(page.get_by_test_id("report-run")).to_have_count(2)      # the hidden run's row, after the deadline
        expect(page.get_by_test_id("report-run-logs")).to_have_count(1)  # but never its logs
    finally:
        stack.api("PATCH", f"/api/courses/{course_id}/assignments/{SLUG}/", {"deadline": None},
                  token=stack.teacher_token)
