"""The editor by keyboard (issue 22, point 3), in a real browser: Ctrl+Enter runs and
Shift+Ctrl+Enter simulates with the run bar's settings; Esc, or Ctrl+M, lets Tab leave the
editor for the run bar; the shortcuts panel lists the keys."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import APP, login, replace_editor_text

pytestmark = [pytest.mark.stack, pytest.mark.browser]

IN_EDITOR = "() => !!document.activeElement && !!document.activeElement.closest('.monaco-editor')"
EDITOR_TEXT = "() => window.monaco.editor.getModels().find((m) => m.uri.path.endsWith('app.lua')).getValue()"


def _job_id(page: Page) -> int:
    page.wait_for_url(re.compile(r"/jobs/\d+"))
    return int(re.search(r"/jobs/(\d+)", page.url).group(1))


def test_ctrl_enter_runs_and_shift_ctrl_enter_simulates(page: Page, stack) -> None:
    login(page)
    replace_editor_text(page, APP)
    page.get_by_test_id("run-nodes").fill("2")
    page.get_by_test_id("run-duration").fill("5")
    page.get_by_test_id("editor").locator(".monaco-editor").first.click()
    page.keyboard.press("Control+Enter")
    live = stack.api("GET", f"/api/jobs/{_job_id(page)}/")
    assert (live["mode"], live["nodes"], live["duration"]) == ("live", 2, 5)
    assert "browser hello" in live["code"]

    page.goto("/")
    page.get_by_test_id("run-nodes").fill("3")
    page.get_by_test_id("run-duration").fill("5")
    page.get_by_test_id("editor").locator(".monaco-editor").first.click()
    page.keyboard.press("Shift+Control+Enter")
    sim = stack.api("GET", f"/api/jobs/{_job_id(page)}/")
    assert (sim["mode"], sim["nodes"], sim["duration"]) == ("sim", 3, 5)
    expect(page.get_by_test_id("job-state")).to_have_text(re.compile("RUNNING|ENDED"), timeout=30_000)


def test_esc_or_ctrl_m_lets_a_keyboard_user_leave_the_editor(page: Page) -> None:
    login(page)
    replace_editor_text(page, APP)
    assert page.evaluate(IN_EDITOR)
    before = page.evaluate(EDITOR_TEXT)

    # Esc: out of the editor, then Tab reaches the Run button
    page.keyboard.press("Escape")
    assert not page.evaluate(IN_EDITOR)
    for _ in range(15):
        if page.evaluate("() => document.activeElement?.dataset.testid") == "run-button":
            break
        page.keyboard.press("Tab")
    expect(page.get_by_test_id("run-button")).to_be_focused()
    assert page.evaluate(EDITOR_TEXT) == before

    # Ctrl+M (as in VS Code): Tab moves the focus instead of indenting
    page.get_by_test_id("editor").locator(".monaco-editor").first.click()
    assert page.evaluate(IN_EDITOR)
    page.keyboard.press("Control+M")
    page.keyboard.press("Tab")
    assert not page.evaluate(IN_EDITOR)
    assert page.evaluate(EDITOR_TEXT) == before

    # The shortcuts panel says so
    page.get_by_test_id("editor-shortcuts").locator("summary").click()
    panel = page.get_by_test_id("editor-shortcuts")
    for keys in ("Ctrl/⌘+Enter", "Shift+Ctrl/⌘+Enter", "Esc", "Ctrl+M"):
        expect(panel.get_by_text(keys, exact=True)).to_be_visible()
