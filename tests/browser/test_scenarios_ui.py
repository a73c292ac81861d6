"""The churn scenario editor in a real browser: the live preview (the SPLAY paper's figure 4)
follows the text as it is typed, a bad line is marked where it is wrong, and the library is the
instructors' to write."""
from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login

pytestmark = [pytest.mark.stack, pytest.mark.browser]

SMALL = "at 1s join 7\nat 30s stop\n"
LARGER = "at 1s join 12\nfrom 10s to 20s leave 5\nat 30s stop\n"
# line 2, column 6: the instant: expected a time unit (s, m, h, d) after 2
BROKEN = "at 1s join 7\nat 2 leave 3\n"
FIXED = "at 1s join 9\nat 2s leave 3\n"


def peak(n: int) -> re.Pattern[str]:
    """The summary's peak population, whole (7 must not match 70)."""
    return re.compile(rf"\bpeak population {n}\b")


def open_scenarios(page: Page, user: str = "student", password: str = "student-demo") -> None:
    login(page, user, password)
    page.get_by_role("link", name="Scenarios", exact=True).click()
    expect(page.get_by_test_id("churn-editor").locator(".monaco-editor")).to_be_visible()
    # the library's first scenario is open and previewed
    expect(page.get_by_test_id("churn-summary")).to_contain_text("peak population")


def replace_churn_text(page: Page, text: str) -> None:
    """test_workspace_ui.replace_editor_text, in the scenario editor."""
    editor = page.get_by_test_id("churn-editor").locator(".monaco-editor").first
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    # insertText types the whole text as one input event (no auto-closing brackets).
    page.keyboard.insert_text(text)


def test_typing_a_script_redraws_the_preview(page: Page) -> None:
    open_scenarios(page)
    library = page.get_by_test_id("scenario-list")
    expect(library).to_contain_text("massive failure")
    library.get_by_text("figure 4 (SPLAY paper)").click()
    expect(page.get_by_test_id("scenario-name")).to_have_text("figure 4 (SPLAY paper)")
    population = page.get_by_test_id("churn-population")
    expect(population.locator("canvas")).to_be_visible()
    expect(population).to_contain_text("time (min)")  # figure 4 lasts 41 minutes

    summary = page.get_by_test_id("churn-summary")
    replace_churn_text(page, SMALL)
    expect(summary).to_contain_text(peak(7))
    expect(summary).to_contain_text("7 nodes")
    expect(population).to_contain_text("time (s)")
    expect(page.get_by_test_id("churn-bins").locator("canvas")).to_be_visible()

    replace_churn_text(page, LARGER)
    expect(summary).to_contain_text(peak(12))
    expect(population.locator("canvas")).to_be_visible()


def test_a_syntax_error_is_marked_at_its_line_and_fixing_it_clears_it(page: Page) -> None:
    open_scenarios(page)
    summary = page.get_by_test_id("churn-summary")
    replace_churn_text(page, SMALL)
    expect(summary).to_contain_text(peak(7))

    replace_churn_text(page, BROKEN)
    errors = page.get_by_test_id("churn-errors").locator("li")
    expect(errors).to_have_count(1)
    expect(errors.first).to_have_text(re.compile(r"^line 2, column 6: .*time unit"))
    editor = page.get_by_test_id("churn-editor")
    squiggle = editor.locator(".squiggly-error")
    expect(squiggle.first).to_be_attached()
    # on line 2, from column 6 ("leave") on, not from the line's start
    line2 = editor.locator(".view-line").nth(1)
    expect(line2).to_contain_text("at 2 leave 3")
    box, line_box = squiggle.first.bounding_box(), line2.bounding_box()
    assert abs(box["y"] - line_box["y"]) < 5
    assert box["x"] > line_box["x"] + 20
    # the last good preview stays while the text is wrong
    expect(summary).to_contain_text(peak(7))

    replace_churn_text(page, FIXED)
    expect(summary).to_contain_text(peak(9))
    expect(page.get_by_test_id("churn-errors")).to_have_count(0)
    expect(squiggle).to_have_count(0)


def test_the_teacher_saves_a_new_scenario_and_a_student_may_not(page: Page) -> None:
    open_scenarios(page, "teacher", "teacher-demo")
    name = f"browser churn {uuid.uuid4().hex[:6]}"
    page.get_by_test_id("scenario-new").click()
    page.get_by_test_id("scenario-name").fill(name)
    page.get_by_test_id("scenario-description").fill("a dozen nodes, five leave")
    replace_churn_text(page, LARGER)
    expect(page.get_by_test_id("churn-summary")).to_contain_text(peak(12))
    page.get_by_test_id("scenario-save").click()

    library = page.get_by_test_id("scenario-list")
    expect(library).to_contain_text(name)
    expect(page.get_by_test_id("scenario-save-status")).to_have_text("saved")

    page.get_by_test_id("logout-button").click()
    page.wait_for_url(re.compile(r"/login"))
    open_scenarios(page)
    expect(library).to_contain_text(name)
    expect(page.get_by_test_id("scenario-save")).to_have_count(0)
    expect(page.get_by_test_id("scenario-new")).to_have_count(0)
    # the student opens it: read-only name, the text previewed
    library.get_by_text(name).click()
    expect(page.get_by_test_id("scenario-name")).to_have_text(name)
    expect(page.get_by_test_id("churn-summary")).to_contain_text(peak(12))
