"""The browser side shared by the UI benchmarks (trace_diagram.py, editor_completion.py): Debian's
chromium, headless with the tests' flags (tests/stack_helpers.py), and a page logged in as the demo
student of a running stack."""
from __future__ import annotations

from stack_helpers import CHROMIUM_ARGS  # tests/: the same chromium the browser tests drive


def student_page(pw, base_url: str, width: int, height: int, timeout_ms: int):
    """A new page of a fresh headless chromium, signed in as the demo student (the workspace
    editor is on screen). Closing it: page.context.browser.close()."""
    browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
    page = browser.new_context(viewport={"width": width, "height": height}, base_url=base_url).new_page()
    page.set_default_timeout(timeout_ms)
    page.goto("/login")
    page.get_by_test_id("login-username").fill("student")
    page.get_by_test_id("login-password").fill("student-demo")
    page.get_by_test_id("login-submit").click()
    page.get_by_test_id("editor").wait_for()
    return page
