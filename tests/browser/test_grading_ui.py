"""Grading in a real browser (docs/grading.md), against the real stack: a student opens the Chord
assignment of the demo course, reads the handout beside the editor (which starts from the
starter), submits, is told the rate limit's reason when submitting again at once, and reads the
graded report (score, each visible check with its points and reason; the hidden check withheld
before the deadline). The instructor then sees the submission in the gradebook, with the
hidden check on its report, overrides the grade with a comment, and exports the CSV."""
from __future__ import annotations

import csv
import io
import json
import re
import urllib.error
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login, replace_editor_text

pytestmark = [pytest.mark.stack, pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]
CHORD = ROOT / "assignments" / "chord"
DEMO_COURSE = "distributed-systems-demo"
VISIBLE_CHECKS = ["No node raises an error", "Every successor is right", "Every predecessor is right",
                  "Lookups find the key's owner", "Lookups take O(log N) hops",
                  "Each node talks to a few peers, not to everyone", "Messages per node close to the reference's"]
HIDDEN_CHECK = "Lookup latency close to the reference's"
GRADING_TIMEOUT_MS = 240_000  # two simulated runs of 64 nodes (the submission's and the reference's)


@pytest.fixture(scope="module")
def chord(stack) -> dict:
    """assignments/chord in the demo course, published. seed_demo loads every assignment folder
    already; loading it again (an update by slug, what an instructor does after editing the
    folder: `./splaylab assignments load assignments/chord --course distributed-systems-demo`)
    and publishing are idempotent, and keep this test independent of the seed."""
    out = stack.manage("assignments_load", "--course", DEMO_COURSE, str(CHORD))
    assert "distributed-systems-demo/chord" in out
    [course] = [c for c in stack.api("GET", "/api/courses/", token=stack.teacher_token) if c["slug"] == DEMO_COURSE]
    stack.api("PATCH", f"/api/courses/{course['id']}/assignments/chord/", {"published": True}, token=stack.teacher_token)
    return course


def monaco_text(page: Page) -> str:
    return page.evaluate("window.monaco.editor.getModels().map((m) => m.getValue()).join('\\n')")


def test_a_student_submits_chord_and_the_instructor_grades_it(page: Page, stack, chord) -> None:
    starter = (CHORD / "starter" / "app.lua").read_text()
    reference = (CHORD / "reference" / "app.lua").read_text()

    # The student finds the assignment from the Courses page.
    login(page)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Courses").click()
    page.get_by_test_id("course-item").get_by_role("link", name=chord["name"]).click()
    expect(page.get_by_test_id("course-name")).to_have_text(chord["name"])
    page.get_by_test_id("assignment-item").get_by_role("link", name="Chord: lookups on a ring").click()
    page.wait_for_url(re.compile(rf"/courses/{chord['id']}/assignments/chord$"))

    # The handout (README.md, rendered) beside the editor, which holds the starter.
    handout = page.get_by_test_id("handout")
    expect(handout.get_by_role("heading", name="Chord: lookups on a ring")).to_be_visible()
    expect(handout.get_by_role("heading", name="How it is graded")).to_be_visible()
    expect(handout.locator("table td", has_text="Every successor is right")).to_be_visible()
    editor = page.get_by_test_id("editor")
    expect(editor.locator(".monaco-editor")).to_be_visible()
    box_handout, box_editor = page.get_by_test_id("handout-panel").bounding_box(), editor.bounding_box()
    assert box_handout and box_editor
    assert box_handout["x"] + box_handout["width"] <= box_editor["x"], "the handout is beside the editor"
    assert box_handout["y"] < box_editor["y"] + box_editor["height"] and box_editor["y"] < box_handout["y"] + box_handout["height"]
    expect(page.get_by_test_id("save-status")).to_have_text("saved")
    assert monaco_text(page).strip() == starter.strip()

    # The student's solution (here: the reference's text), autosaved in the assignment's workspace.
    replace_editor_text(page, reference)
    expect(page.get_by_test_id("save-status")).to_have_text("saved", timeout=10_000)
    page.get_by_test_id("submit-button").click()
    result = page.get_by_test_id("submit-result")
    expect(result).to_contain_text("Submitted as #")
    submission_id = int(re.search(r"#(\d+)", result.inner_text()).group(1))
    item = page.locator(f'[data-testid="submission-item"][data-submission-id="{submission_id}"]')
    expect(item).to_be_visible()

    # At once again: refused, and the server's reason is shown as it is worded.
    page.get_by_test_id("submit-button").click()
    error = page.get_by_test_id("submit-error")
    expect(error).to_contain_text(re.compile(
        r"Not submitted: at most one submission every 60 s: the next submission is allowed at "
        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in \d+ s\)"))
    try:
        stack.api("POST", f"/api/courses/{chord['id']}/assignments/chord/submissions/", {"source": reference})
        raise AssertionError("a second submission at once was accepted")
    except urllib.error.HTTPError as exc:
        assert exc.code == 429
        assert json.loads(exc.read())["detail"].startswith("at most one submission every 60 s")

    # The report: graded by the worker through the real grader.
    item.get_by_role("link").click()
    page.wait_for_url(re.compile(rf"/submissions/{submission_id}$"))
    expect(page.get_by_test_id("submission-status")).to_have_attribute("data-status", "graded", timeout=GRADING_TIMEOUT_MS)
    expect(page.get_by_test_id("submission-score")).to_have_text("100 / 100 on the visible checks")
    expect(page.get_by_test_id("hidden-withheld")).to_have_text(  # the demo's Chord has no deadline
        "1 hidden check is not shown: this assignment has no deadline, so this score counts the visible checks only.")
    checks = page.get_by_test_id("report-check")
    expect(checks).to_have_count(len(VISIBLE_CHECKS))
    names = [t.splitlines()[0].strip() for t in page.get_by_test_id("report-check-name").all_inner_texts()]
    assert names == VISIBLE_CHECKS
    assert HIDDEN_CHECK not in page.content()
    for i in range(len(VISIBLE_CHECKS)):
        row = checks.nth(i)
        assert row.get_attribute("data-passed") == "true"
        assert re.fullmatch(r"(\d+(\.\d+)?) / \1", row.get_by_test_id("report-check-points").inner_text())
        assert row.get_by_test_id("report-check-message").inner_text().strip()
    expect(checks.filter(has_text="Lookups find the key's owner").get_by_test_id("report-check-message")).to_contain_text(
        re.compile(r"\d"))
    expect(page.get_by_test_id("report-run")).to_have_count(1)
    expect(page.get_by_test_id("report-run")).to_contain_text("sim, 64 nodes, 240 s, seed 3, net king")
    # the run's lookup-latency CDF, drawn over the reference's on the same run
    plot = page.get_by_test_id("report-plot")
    expect(plot).to_have_count(1)
    expect(plot).to_contain_text("Lookup latency, run ring (640 samples)")
    expect(plot.locator(".u-legend")).to_contain_text("this submission")
    expect(plot.locator(".u-legend")).to_contain_text("reference solution")
    expect(page.get_by_test_id("regrade-button")).to_have_count(0)  # students do not regrade
    # the breadcrumb names the assignment; its course page shows the student's latest score
    page.get_by_role("navigation", name="Breadcrumbs").get_by_role("link", name="Chord: lookups on a ring").click()
    page.goto(f"/courses/{chord['id']}")
    latest = page.locator('[data-testid="assignment-item"][data-slug="chord"] [data-testid="assignment-latest"]')
    expect(latest).to_have_text("Your latest submission: 100 / 100")

    # The instructor: the gradebook shows it; its report has the hidden check too.
    page.get_by_test_id("logout-button").click()
    page.wait_for_url(re.compile(r"/login"))
    login(page, "teacher", "teacher-demo")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Gradebook").click()
    page.wait_for_url(re.compile(rf"/courses/{chord['id']}/gradebook$"))
    cell = page.locator('[data-testid="gradebook-row"][data-student="student"] [data-testid="gradebook-cell"][data-assignment="chord"]')
    expect(cell).to_have_text("100")
    expect(cell).to_have_attribute("data-source", "submission")
    cell.click()
    form = page.get_by_test_id("override-form")
    expect(form).to_contain_text(f"latest graded submission #{submission_id}: 100 → 100")
    form.get_by_role("link", name=re.compile(r"Open the latest graded submission")).click()
    page.wait_for_url(re.compile(rf"/submissions/{submission_id}$"))
    expect(page.get_by_test_id("report-check")).to_have_count(len(VISIBLE_CHECKS) + 1)
    expect(page.get_by_test_id("report-check").filter(has_text=HIDDEN_CHECK)).to_contain_text("hidden")
    expect(page.get_by_test_id("regrade-button")).to_be_visible()
    page.go_back()

    # An override with its comment replaces the score, in the book and in the CSV.
    cell.click()
    page.get_by_test_id("override-score").fill("95")
    page.get_by_test_id("override-comment").fill("bonus: a clean write-up")
    page.get_by_test_id("override-save").click()
    expect(cell).to_have_text(re.compile(r"^95 ✎"))
    expect(cell).to_have_attribute("data-source", "override")
    expect(cell).to_have_attribute("title", re.compile(r"override by teacher: 95\nbonus: a clean write-up"))

    with page.expect_download() as download:
        page.get_by_test_id("gradebook-csv").click()
    assert download.value.suggested_filename == f"{DEMO_COURSE}-gradebook.csv"
    rows = list(csv.reader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8"))))
    header = rows[0]
    assert header[:3] == ["username", "name", "email"] and "chord" in header[3:]
    [student_row] = [r for r in rows[1:] if r[0] == "student"]
    assert student_row[header.index("chord")] == "95"
