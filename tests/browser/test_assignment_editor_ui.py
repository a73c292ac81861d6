"""The assignment editor in a real browser (docs/grading.md, issue 7), against the real stack: the
instructor of the demo course opens Chord's editor from the course page, adds a line to the
handout (seen in the live preview), sets a deadline in the browser's time zone (sent as UTC) and
saves; a YAML syntax error in the spec is shown with its line before anything is sent, and a spec
the grader refuses (a check that does not exist) is not saved and shows the server's message as
it is worded. The student then reads the new handout line and the deadline, and cannot edit."""
from __future__ import annotations

import json
import re
import time
import urllib.error
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login

pytestmark = [pytest.mark.stack, pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]
CHORD = ROOT / "assignments" / "chord"
DEMO_COURSE = "distributed-systems-demo"
ZONE = "Europe/Zurich"  # the teacher's browser: UTC+2 in May


@pytest.fixture()
def chord(stack):
    """assignments/chord in the demo course, published and without a deadline; put back after."""
    def reset() -> dict:
        stack.manage("assignments_load", "--course", DEMO_COURSE, str(CHORD))  # the folder's texts again
        [course] = [c for c in stack.api("GET", "/api/courses/", token=stack.teacher_token) if c["slug"] == DEMO_COURSE]
        stack.api("PATCH", f"/api/courses/{course['id']}/assignments/chord/", {"published": True, "deadline": None},
                  token=stack.teacher_token)
        return course

    yield reset()
    reset()


@pytest.fixture()
def teacher_page(chromium, stack):
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, base_url=stack.url, timezone_id=ZONE)
    context.set_default_timeout(20_000)
    page = context.new_page()
    yield page
    context.close()


def set_model(page: Page, suffix: str, text: str) -> None:
    """Replace the text of the open Monaco model whose path ends with `suffix` (as a paste would)."""
    page.evaluate("""([suffix, text]) => {
        const model = window.monaco.editor.getModels().find((m) => m.uri.path.endsWith(suffix));
        model.pushEditOperations([], [{range: model.getFullModelRange(), text}], () => null);
    }""", [suffix, text])


def model_text(page: Page, suffix: str) -> str:
    page.wait_for_function("""(suffix) => window.monaco?.editor.getModels().some((m) => m.uri.path.endsWith(suffix))""",
                           arg=suffix)
    return page.evaluate("""(suffix) =>
        window.monaco.editor.getModels().find((m) => m.uri.path.endsWith(suffix)).getValue()""", suffix)


def test_the_instructor_edits_chord_and_the_student_sees_it(teacher_page: Page, page: Page, stack, chord) -> None:
    url = f"/api/courses/{chord['id']}/assignments/chord/"
    before = stack.api("GET", url, token=stack.teacher_token)
    line = f"Edited in the browser ({time.time_ns()})."

    # The instructor opens the editor from the course page.
    t = teacher_page
    login(t, "teacher", "teacher-demo")
    t.goto(f"/courses/{chord['id']}")
    t.locator('[data-testid="assignment-item"][data-slug="chord"]').get_by_test_id("assignment-edit-link").click()
    t.wait_for_url(re.compile(rf"/courses/{chord['id']}/assignments/chord/edit$"))
    expect(t.get_by_test_id("edit-title")).to_have_value("Chord: lookups on a ring")
    expect(t.get_by_test_id("edit-save")).to_be_disabled()

    # The handout: a new last line, typed into Monaco, rendered in the preview as it is typed.
    editor = t.get_by_test_id("edit-code").locator(".monaco-editor").first
    expect(editor).to_be_visible()
    expect(t.get_by_test_id("handout-preview").get_by_role("heading", name="Chord: lookups on a ring")).to_be_visible()
    editor.click()
    t.keyboard.press("Control+End")
    t.keyboard.insert_text(f"\n\n{line}")
    expect(t.get_by_test_id("handout-preview").locator("p", has_text=line)).to_be_visible()
    expect(t.get_by_test_id("edit-tab-handout")).to_contain_text("•")

    # A deadline in the future, typed in the browser's time zone.
    expect(t.get_by_test_id("edit-no-deadline")).to_be_checked()
    t.get_by_test_id("edit-no-deadline").uncheck()
    t.get_by_test_id("edit-deadline").fill("2031-05-04T13:30")
    expect(t.get_by_test_id("edit-save-status")).to_have_text("unsaved changes")
    t.get_by_test_id("edit-save").click()
    expect(t.get_by_test_id("edit-save-status")).to_have_text("saved")
    expect(t.get_by_test_id("edit-save")).to_be_disabled()
    after = stack.api("GET", url, token=stack.teacher_token)
    assert after["handout"].rstrip().endswith(line)
    assert after["handout"].startswith(before["handout"].rstrip())
    assert after["deadline"] == "2031-05-04T11:30:00Z"  # 13:30 in Zurich (summer time)
    assert (after["spec"], after["starter"], after["published"]) == (before["spec"], before["starter"], True)

    # The spec: a YAML syntax error is shown with its line, and nothing is sent.
    t.get_by_test_id("edit-tab-spec").click()
    expect(t.get_by_test_id("edit-code").locator(".monaco-editor").first).to_be_visible()
    spec_yaml = model_text(t, "/assignment.yaml")
    assert spec_yaml.startswith('title: "Chord: lookups on a ring"') or spec_yaml.startswith("title: 'Chord: lookups on a ring'")
    broken_lines = spec_yaml.splitlines()
    broken_lines[1] = "\t" + broken_lines[1]  # tabs are not YAML indentation
    set_model(t, "/assignment.yaml", "\n".join(broken_lines) + "\n")
    expect(t.get_by_test_id("spec-error")).to_contain_text(re.compile(r"line 2, column \d+: "))
    t.get_by_test_id("edit-save").click()
    expect(t.get_by_test_id("edit-local-error")).to_contain_text("line 2")
    assert stack.api("GET", url, token=stack.teacher_token)["updated_at"] == after["updated_at"]

    # Valid YAML naming a check that does not exist: the grader's 400, in its own words.
    unknown = spec_yaml.replace("check: no_runtime_errors", "check: no_such_check")
    assert unknown != spec_yaml
    set_model(t, "/assignment.yaml", unknown)
    expect(t.get_by_test_id("spec-error")).to_have_count(0)
    t.get_by_test_id("edit-save").click()
    error = t.get_by_test_id("edit-save-error")
    expect(error).to_contain_text("no library check 'no_such_check'")
    bad = json.loads(json.dumps(after["spec"]).replace('"no_runtime_errors"', '"no_such_check"'))
    with pytest.raises(urllib.error.HTTPError) as refused:
        stack.api("PATCH", url, {"spec": bad}, token=stack.teacher_token)
    assert refused.value.code == 400
    message = json.loads(refused.value.read())["spec"][0]
    expect(error).to_have_text(f"Not saved: spec: {message}")
    assert stack.api("GET", url, token=stack.teacher_token)["spec"] == before["spec"]

    # Leaving with those unsaved changes asks first: a link inside the app with the editor's own
    # question (dismissed: the edit page and its draft stay), a full navigation with the
    # browser's "leave site?" (accepted here).
    asked: list[tuple[str, str]] = []

    def answer(dialog, accept: bool) -> None:
        asked.append((dialog.type, dialog.message))
        dialog.accept() if accept else dialog.dismiss()

    # The handler is in place before the click: the confirm blocks the page, and a click that
    # waits for its navigation would otherwise wait on a dialog nobody answers.
    t.once("dialog", lambda d: answer(d, False))
    t.get_by_role("navigation", name="Breadcrumbs").get_by_role("link", name="Chord: lookups on a ring").click()
    for _ in range(50):
        if asked:
            break
        t.wait_for_timeout(100)
    expect(t.get_by_test_id("edit-save-status")).to_have_text("unsaved changes")
    assert asked == [("confirm", "This assignment has changes that are not saved. Leave and lose them?")]
    assert t.url.endswith("/assignments/chord/edit")
    t.once("dialog", lambda d: answer(d, True))

    # The editor is also reached from the assignment's page (instructors only).
    t.goto(f"/courses/{chord['id']}/assignments/chord")
    assert [kind for kind, _ in asked] == ["confirm", "beforeunload"]
    expect(t.get_by_test_id("assignment-edit-link")).to_be_visible()

    # The student: the deadline on the course page, the new line in the handout, no editing.
    login(page)
    page.goto(f"/courses/{chord['id']}")
    item = page.locator('[data-testid="assignment-item"][data-slug="chord"]')
    expect(item.locator(".assignment-deadline")).to_contain_text(re.compile(r"^Deadline .*2031"))
    expect(item.get_by_test_id("assignment-edit-link")).to_have_count(0)
    item.get_by_role("link", name="Chord: lookups on a ring").click()
    page.wait_for_url(re.compile(rf"/courses/{chord['id']}/assignments/chord$"))
    expect(page.get_by_test_id("handout").locator("p", has_text=line)).to_be_visible()
    expect(page.get_by_test_id("assignment-deadline")).to_contain_text(re.compile(r"^Deadline .*2031"))
    expect(page.get_by_test_id("assignment-edit-link")).to_have_count(0)
    page.goto(f"/courses/{chord['id']}/assignments/chord/edit")
    expect(page.get_by_test_id("edit-not-allowed")).to_be_visible()
