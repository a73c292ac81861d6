"""A submission's syntax, checked before anything runs (docs/grading.md).

A grading run gives the node runtime the submission as app.lua and the harness as harness.lua
(`./splaylab run --harness`): the runtime loads the harness first, in an environment of its own
with its capability, then the submission (docs/grading.md, "What the grader trusts"), so an error
in the submission names the student's own line.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

# Compiles a file the way the node runtime does (boot.compile_app: text only, chunk "app.lua",
# Lua 5.1's escapes read as Lua 5.1 read them): the runtime's own check, one definition.
SYNTAX_CHECK = Path(__file__).resolve().parents[3] / "sandbox" / "syntax_check.lua"


def syntax_error(source: str) -> str | None:
    """The LuaJIT compiler's message for source ("app.lua:LINE: ..."), or None when it compiles."""
    luajit = shutil.which("luajit")
    if not luajit:
        raise RuntimeError("luajit not found (apt-get install luajit)")
    p = subprocess.run([luajit, str(SYNTAX_CHECK), "app.lua"], input=source, capture_output=True, text=True, timeout=30)
    if p.returncode == 0:
        return None
    return p.stderr.strip() or "app.lua: does not compile"
