"""Diagnostics while typing (issue 22, point 2), in a real browser: before any run, the
workspace editor marks the syntax error the in-browser parser finds, or else the lint's
warnings with SPLAY's globals declared (the rules and words of `./splaylab check`), as Monaco
markers on the right lines, which a hover explains."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login, replace_editor_text

pytestmark = [pytest.mark.stack, pytest.mark.browser]

LINTED = """require "splay.base"
local rpc = require "splay.rpc"
local unused_peer = job.me
function ping(n) return n end
events.thread(function()
  local count = 0
  for i = 1, 3 do
    local count = misc.time()
    log.print(count, rpc, ping(1), undefined_peers)
  end
  do return end
  log.print("never")
end)
events.run()
"""

# (line, severity, code, message): what luacheck says of LINTED with SPLAY's globals.
EXPECTED = [
    (3, "warning", "W211", "unused variable 'unused_peer'"),
    (6, "warning", "W211", "unused variable 'count'"),
    (7, "warning", "W213", "unused loop variable 'i'"),
    (8, "warning", "W421", "shadowing definition of variable 'count' on line 6"),
    (9, "warning", "W113", "accessing undefined variable 'undefined_peers'"),
    (12, "warning", "W511", "unreachable code"),
]

MODEL_TEXT = "() => window.monaco.editor.getModels().find((m) => m.uri.path.endsWith('app.lua')).getValue()"
READ_MARKERS = """() => window.monaco.editor.getModelMarkers({ owner: "splaylab" })
  .filter((m) => m.resource.path.endsWith("app.lua"))
  .map((m) => [m.startLineNumber, m.startColumn, m.endColumn,
               m.severity === window.monaco.MarkerSeverity.Warning ? "warning" : "error",
               typeof m.code === "string" ? m.code : (m.code ? m.code.value : null), m.message])"""
# the markers without their columns (line, severity, code, message)
READ_LINES = f"() => ({READ_MARKERS})().map(([line, _s, _e, severity, code, message]) => [line, severity, code, message])"


def _wait_lines(page: Page, expected: list[tuple]) -> None:
    as_js = json.dumps(json.dumps([list(r) for r in expected], separators=(",", ":")))  # JSON.stringify's spelling
    try:
        page.wait_for_function(f"() => JSON.stringify(({READ_LINES})()) === {as_js}", timeout=10_000)
    except Exception:  # say what the editor marked instead
        assert [tuple(m) for m in page.evaluate(READ_LINES)] == expected
        raise


def test_lint_warnings_are_marked_on_their_lines_while_typing(page: Page, stack, tmp_path: Path) -> None:
    login(page)
    replace_editor_text(page, LINTED)
    _wait_lines(page, EXPECTED)
    # The same findings, over the same columns, as the command line's check of the editor's text.
    path = tmp_path / "linted.lua"
    path.write_text(page.evaluate(MODEL_TEXT))
    result = stack.cli("check", str(path), "--json")
    found = json.loads(result.stdout.splitlines()[-1])
    assert [tuple(m) for m in page.evaluate(READ_MARKERS)] == [
        (w["line"], w["column"], w["end_column"] + 1, "warning", w["code"], w["message"]) for w in found["warnings"]]

    # Drawn as warning squiggles; hovering the undefined global (line 9) explains it.
    editor = page.get_by_test_id("editor")
    squiggles = editor.locator(".squiggly-warning")
    expect(squiggles).to_have_count(len(EXPECTED))
    line9 = editor.locator(".view-line").nth(8).bounding_box()
    assert line9
    boxes = [squiggles.nth(i).bounding_box() for i in range(len(EXPECTED))]
    on_line9 = [b for b in boxes if b and abs(b["y"] - line9["y"]) < 5]
    assert len(on_line9) == 1, boxes
    page.mouse.move(on_line9[0]["x"] + on_line9[0]["width"] / 2, line9["y"] + line9["height"] / 2)
    expect(page.locator(".monaco-hover").filter(has_text="accessing undefined variable 'undefined_peers'")).to_be_visible()

    # A syntax error replaces the warnings with one error on its line, before any run...
    replace_editor_text(page, LINTED.replace("  for i = 1, 3 do\n", "  for i = 1, 3\n"))
    _wait_lines(page, [(8, "error", None, "'do' expected near 'local'")])
    expect(editor.locator(".squiggly-error")).to_have_count(1)
    # ...and the fixed text gets its warnings back.
    replace_editor_text(page, LINTED)
    _wait_lines(page, EXPECTED)
