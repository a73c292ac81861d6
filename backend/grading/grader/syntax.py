"""A submission's syntax, checked before anything runs (docs/grading.md).

A grading run gives the node runtime the submission as app.lua and the harness as harness.lua
(`./splaylab run --harness`): the runtime loads the harness first, in an environment of its own
with its capability, then the submission (docs/grading.md, "What the grader trusts"), so an error
in the submission names the student's own line.
"""
from __future__ import annotations

import shutil
import subprocess

# Compiles a file the way the node runtime does (boot.compile_app: text only, chunk "app.lua").
_CHECK = ("local src = io.read('*a'); "
          "if src:sub(1, 1) == '\\27' then io.stderr:write('app.lua:1: precompiled bytecode is not accepted, send Lua source'); os.exit(1) end; "
          "local ok, err = loadstring(src, '=app.lua'); "
          "if not ok then io.stderr:write(err); os.exit(1) end")


def syntax_error(source: str) -> str | None:
    """The LuaJIT compiler's message for source ("app.lua:LINE: ..."), or None when it compiles."""
    luajit = shutil.which("luajit")
    if not luajit:
        raise RuntimeError("luajit not found (apt-get install luajit)")
    p = subprocess.run([luajit, "-e", _CHECK], input=source, capture_output=True, text=True, timeout=30)
    if p.returncode == 0:
        return None
    return p.stderr.strip() or "app.lua: does not compile"
