"""The student's path through the web UI, in a real browser against the real stack."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.stack, pytest.mark.browser]

APP = """require "splay.base"
events.run(function()
  for i = 1, 3 do
    log.info("browser hello " .. job.position .. " round " .. i)
    events.sleep(0.3)
  end
  events.exit()
end)
"""


def login(page: Page, user: str = "student", password: str = "student-demo") -> None:
    page.goto("/login")
    page.get_by_test_id("login-username").fill(user)
    page.get_by_test_id("login-password").fill(password)
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("editor").locator(".monaco-editor")).to_be_visible()


def replace_editor_text(page: Page, code: str) -> None:
    editor = page.get_by_test_id("editor").locator(".monaco-editor").first
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    # insertText types the whole program as one input event (no auto-closing brackets).
    page.keyboard.insert_text(code)


def run(page: Page, nodes: int, duration: int) -> None:
    page.get_by_test_id("run-nodes").fill(str(nodes))
    page.get_by_test_id("run-duration").fill(str(duration))
    page.get_by_test_id("run-button").click()
    page.wait_for_url(re.compile(r"/jobs/\d+"))


def test_bad_password_shows_an_error(page: Page) -> None:
    page.goto("/login")
    page.get_by_test_id("login-username").fill("student")
    page.get_by_test_id("login-password").fill("wrong")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("login-error")).to_be_visible()


def test_student_runs_code_and_sees_live_logs_from_several_nodes(page: Page) -> None:
    login(page)
    replace_editor_text(page, APP)
    run(page, nodes=3, duration=20)

    lines = page.get_by_test_id("log-line")
    expect(lines.filter(has_text="browser hello 1 round 3")).to_have_count(1)
    expect(lines.filter(has_text="browser hello 3 round 3")).to_have_count(1)
    nodes = {lines.nth(i).get_attribute("data-node") for i in range(lines.count())}
    assert {"1", "2", "3"} <= nodes
    expect(page.get_by_test_id("job-state")).to_have_text("ENDED", timeout=30_000)

    # The stored history survives a reload, and the node filter narrows it.
    page.reload()
    expect(lines.filter(has_text="browser hello 2 round 1")).to_have_count(1)
    page.get_by_test_id("log-node-filter").select_option("2")
    expect(lines.filter(has_text="browser hello 1 round")).to_have_count(0)
    assert {lines.nth(i).get_attribute("data-node") for i in range(lines.count())} == {"2"}


def test_stop_button_kills_the_job(page: Page) -> None:
    login(page)
    replace_editor_text(page, 'require "splay.base"\nevents.run(function()\n'
                              '  while true do print("spin") events.sleep(0.2) end\nend)\n')
    run(page, nodes=2, duration=120)
    expect(page.get_by_test_id("job-state")).to_have_text("RUNNING", timeout=30_000)

    page.get_by_test_id("stop-button").click()

    expect(page.get_by_test_id("job-state")).to_have_text("KILLED", timeout=20_000)
    expect(page.get_by_test_id("job-reason")).to_contain_text("student")
    # Its nodes end a moment later on their daemons: the open page follows, without a reload.
    rows = page.get_by_test_id("instances-table").locator("tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.filter(has_text="KILLED")).to_have_count(2, timeout=15_000)
    expect(rows.filter(has_text="RUNNING")).to_have_count(0)


def test_a_paste_past_the_workspace_limit_says_so_and_loses_nothing(page: Page) -> None:
    uncaught: list[str] = []
    page.on("pageerror", lambda error: uncaught.append(str(error)))
    login(page)
    replace_editor_text(page, APP)
    expect(page.get_by_test_id("save-status")).to_have_attribute("data-state", "saved", timeout=15_000)

    # 2 MB pasted over the text: 32,768 lines of 64 bytes (the browser's paste event, as Ctrl+V
    # gives it; typing it key by key would take the test minutes)
    editor = page.get_by_test_id("editor").locator(".monaco-editor").first
    editor.click()
    page.keyboard.press("Control+A")
    page.evaluate("""() => {
      const data = new DataTransfer();
      data.setData("text/plain", ("-- " + "x".repeat(60) + "\\n").repeat(32768));
      document.activeElement.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    }""")
    expect(page.get_by_test_id("editor").locator(".view-line").first).to_contain_text("-- xxxx")
    expect(page.get_by_test_id("save-status")).to_have_attribute("data-state", "error", timeout=15_000)
    expect(page.get_by_test_id("save-error")).to_have_text(
        "not saved: the workspace would hold 2.0 MB, more than its limit of 1.0 MB; your text stays in the editor")
    assert uncaught == []

    # The saved workspace is the last text that fitted; a text that fits saves again.
    replace_editor_text(page, APP.replace("browser hello", "after the paste"))
    expect(page.get_by_test_id("save-status")).to_have_attribute("data-state", "saved", timeout=15_000)
    expect(page.get_by_test_id("save-error")).to_have_count(0)
    page.reload()
    expect(page.get_by_test_id("editor").locator(".view-line").filter(has_text="after the paste")).to_have_count(1)


def test_syntax_error_is_marked_on_its_line_in_the_editor(page: Page) -> None:
    login(page)
    replace_editor_text(page, 'print("one")\nprint("two")\nlocal = 3\n')
    run(page, nodes=2, duration=10)
    expect(page.get_by_test_id("job-state")).to_have_text("FAILED", timeout=30_000)
    expect(page.get_by_test_id("job-reason")).to_contain_text(":3:")

    page.goto("/")
    expect(page.get_by_test_id("editor-error")).to_contain_text(":3:")
    squiggle = page.get_by_test_id("editor").locator(".squiggly-error")
    expect(squiggle.first).to_be_attached()
    # The marker sits on line 3: its top matches the third line's top in the view.
    line3 = page.get_by_test_id("editor").locator(".view-line").nth(2)
    assert abs(squiggle.first.bounding_box()["y"] - line3.bounding_box()["y"]) < 5


def test_an_anonymous_visit_goes_to_login_with_no_console_error(page: Page) -> None:
    """Who-am-I answers 204 to no one: an anonymous visit is not a failed request, so neither
    / (sent on to /login) nor /login itself logs an error in the console."""
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/login$"))
    expect(page.get_by_test_id("login-username")).to_be_visible()
    page.goto("/login")
    expect(page.get_by_test_id("login-username")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert errors == []
    login(page)  # and the sign-in that follows still works
    assert errors == []
