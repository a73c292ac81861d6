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


# The trace tools (POST /api/scenarios/trace/): 10 nodes from 0 s, 5 of them leave at 20 s, the
# stop at 40 s ends the other sessions. As a SPLAY trace: five lines "0 20", five "0 40".
TRACE_SCRIPT = "at 0s join 10\nat 20s leave 5\nat 40s stop\n"
SCRIPT_SUMMARY = "10 nodes · peak population 10 · duration 40 s (stop) · 0 warnings"


def editor_lines(page: Page) -> list[str]:
    """The editor's lines as drawn (Monaco draws spaces as no-break spaces), in order."""
    lines = page.get_by_test_id("churn-editor").locator(".view-line")
    return [text.replace("\xa0", " ") for text in lines.all_inner_texts()]


def trace_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def assert_sessions(lines: list[str], short: str, long: str) -> None:
    """Five nodes leave early (which five is the seed's draw), five stay until the end."""
    assert len(lines) == 10, lines
    assert lines[0].startswith("0 ")
    assert sorted(lines) == [f"0 {short}"] * 5 + [f"0 {long}"] * 5, lines


def open_trace_script(page: Page) -> None:
    open_scenarios(page)
    page.get_by_test_id("scenario-list").get_by_text("massive failure", exact=True).click()
    expect(page.get_by_test_id("scenario-name")).to_have_text("massive failure")
    replace_churn_text(page, TRACE_SCRIPT)
    expect(page.get_by_test_id("churn-summary")).to_have_text(SCRIPT_SUMMARY)


def test_convert_to_trace_replaces_the_text_the_preview_follows_and_undo_restores_it(page: Page) -> None:
    open_trace_script(page)
    summary = page.get_by_test_id("churn-summary")
    convert = page.get_by_test_id("trace-convert")
    page.get_by_test_id("trace-speedup").fill("2")

    # the buttons wait for the answer (held back here until they are seen disabled)
    held = []
    page.route("**/api/scenarios/trace/", lambda route: held.append(route))
    convert.click()
    expect(convert).to_be_disabled()
    expect(page.get_by_test_id("trace-download")).to_be_disabled()
    assert len(held) == 1
    held[0].continue_()
    page.unroute("**/api/scenarios/trace/")

    expect(page.get_by_test_id("trace-result")).to_have_text("Converted to a trace of 10 nodes.")
    expect(convert).to_be_enabled()
    # twice as fast: the leaves at 20 s come at 10 s, the end at 40 s at 20 s
    expect(summary).to_have_text("SPLAY trace · 10 nodes · peak population 10 · duration 20 s · 0 warnings")
    lines = editor_lines(page)
    assert lines[-1] == ""  # the trace's last line break
    assert_sessions(lines[:-1], "10", "20")
    expect(page.get_by_test_id("trace-error")).to_have_count(0)

    # an edit of the editor's: Ctrl+Z gives the script back, and the preview follows
    page.get_by_test_id("churn-editor").locator(".monaco-editor").first.click()
    page.keyboard.press("Control+Z")
    expect(summary).to_have_text(SCRIPT_SUMMARY)
    assert trace_lines("\n".join(editor_lines(page))) == trace_lines(TRACE_SCRIPT)


def test_bad_settings_and_a_bad_text_are_refused_and_download_leaves_the_editor(page: Page) -> None:
    open_trace_script(page)
    summary = page.get_by_test_id("churn-summary")
    speedup = page.get_by_test_id("trace-speedup")
    error = page.get_by_test_id("trace-error")
    result = page.get_by_test_id("trace-result")

    speedup.fill("0")
    page.get_by_test_id("trace-convert").click()
    expect(error).to_have_text("Speed-up: must be above 0")
    # the server's limit (a 400 by field)
    speedup.fill("5000")
    page.get_by_test_id("trace-convert").click()
    expect(error).to_have_text("Speed-up: the speed-up factor must be above 0 and at most 1000")
    expect(result).to_have_count(0)
    speedup.fill("")
    page.get_by_test_id("trace-from").fill("30")
    page.get_by_test_id("trace-to").fill("10")
    page.get_by_test_id("trace-download").click()
    expect(error).to_have_text("To: the window must end after it starts")
    page.get_by_test_id("trace-from").fill("")
    page.get_by_test_id("trace-to").fill("")
    expect(summary).to_have_text(SCRIPT_SUMMARY)  # none of them touched the text

    with page.expect_download() as info:
        page.get_by_test_id("trace-download").click()
    download = info.value
    assert download.suggested_filename == "massive failure.trace"
    with open(download.path(), encoding="utf-8") as f:
        content = f.read()
    assert content.endswith("\n")
    assert_sessions(trace_lines(content), "20", "40")
    expect(result).to_have_text("Downloaded massive failure.trace: a trace of 10 nodes.")
    expect(error).to_have_count(0)
    # the editor still holds the script
    expect(summary).to_have_text(SCRIPT_SUMMARY)
    assert trace_lines("\n".join(editor_lines(page))) == trace_lines(TRACE_SCRIPT)

    replace_churn_text(page, BROKEN)
    expect(page.get_by_test_id("churn-errors")).to_be_visible()
    page.get_by_test_id("trace-convert").click()
    expect(error).to_have_text(re.compile(r"^Fix the scenario's errors first \(line 2: the instant: .*time unit"))
    expect(result).to_have_count(0)
    assert trace_lines("\n".join(editor_lines(page))) == trace_lines(BROKEN)


def test_a_local_file_opens_into_the_editor_and_one_above_1_mb_is_refused(page: Page) -> None:
    open_trace_script(page)
    summary = page.get_by_test_id("churn-summary")
    chooser = page.get_by_test_id("trace-open")
    chooser.set_input_files({"name": "two.trace", "mimeType": "text/plain", "buffer": b"0 10\n5\n"})
    expect(page.get_by_test_id("trace-result")).to_have_text("Opened two.trace.")
    expect(summary).to_have_text("SPLAY trace · 2 nodes · peak population 2 · duration 10 s · 0 warnings")
    assert trace_lines("\n".join(editor_lines(page))) == ["0 10", "5"]

    chooser.set_input_files({"name": "huge.trace", "mimeType": "text/plain", "buffer": b"0 1\n" * 300_000})
    expect(page.get_by_test_id("trace-error")).to_have_text(
        "huge.trace is larger than 1 MB, the limit of a scenario: not opened.")
    expect(summary).to_contain_text("2 nodes")
    assert trace_lines("\n".join(editor_lines(page))) == ["0 10", "5"]
