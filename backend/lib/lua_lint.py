"""Lint of a SPLAY app with luacheck, the rules the browser's editor flags while typing.

Model-free: give it source text, get the warnings (line, column, code, message) in luacheck's
own words. The globals are the node's (sandbox/splay_api.json: the standard ones the sandbox
keeps, plus events, log, misc, job and socket); setting a global defines it (`allow_defined`:
rpc.server serves the app's global functions, so SPLAY apps set globals on purpose). Only the
rules below are reported; frontend/src/lib/lua-lint implements the same ones on luaparse's tree
and a Vitest test compares both on fixtures (docs/editor.md). An escape LuaJIT refuses but Lua 5.1
read as the character ("\\d": SPLAY's bt.lua; the runtime accepts it, sandbox/lib/splaylab/lua51.lua)
has its backslash blanked and is linted again, as the editor does, so both report the same.
Likewise Lua 5.1's implicit `arg` (LUA_COMPAT_VARARG: a vararg function that never names `...`
has a local `arg`; SPLAY's pastry.lua relies on it, and the runtime gives it): luacheck knows
no such local, so when it says `arg` is undefined the source is linted again as the runtime
reads it (splaylab.lua51.vararg_arg: the local written after the parameter list), with columns
moved back and nothing said of the written local itself.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

SPLAY_API = Path(__file__).resolve().parents[2] / "sandbox" / "splay_api.json"
SANDBOX_LIB = Path(__file__).resolve().parents[2] / "sandbox" / "lib"
# what splaylab.lua51.vararg_arg writes after a parameter list
VARARG_ARG_LOCAL = ' local arg = {n = select("#", ...), ...};'
_VARARG_ARG_LUA = "io.write((require('splaylab.lua51').vararg_arg(io.read('*a'))))"

# undefined (112 mutating, 113 accessing), unused (211 variable/function, 213 loop variable,
# 231 set but never read), shadowing (41x same scope, 42x outer block, 43x upvalue),
# unreachable code (511). Unused arguments (212) are left out: callbacks and RPC handlers
# take arguments they do not need.
LINT_CODES = ("112", "113", "211", "213", "231", "411", "412", "413", "421", "422", "423", "431", "432",
              "433", "511")

_LINE_RE = re.compile(r"^.*?:(?P<line>\d+):(?P<col>\d+)-(?P<end>\d+): \((?P<code>[WE]\d+)\) (?P<msg>.*)$")


@dataclass(frozen=True)
class LintWarning:
    line: int
    column: int  # 1-based, luacheck's
    end_column: int
    code: str  # "W113"
    message: str  # "accessing undefined variable 'x'"

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


class LuacheckUnavailable(RuntimeError):
    """luacheck missing or hung: the installation is broken, not the student's code."""


@cache
def splay_globals() -> tuple[str, ...]:
    api = json.loads(SPLAY_API.read_text())
    names = set(api["globals"]) | {m["global"] for m in api["modules"] if m.get("global")}
    return tuple(sorted(names))


def luacheck_argv(path: str, luacheck: str = "luacheck") -> list[str]:
    return [luacheck, path, "--no-config", "--std", "none", "--allow-defined", "--codes", "--ranges",
            "--formatter", "plain", "--no-color", "--globals", *splay_globals(), "--only", *LINT_CODES]


# An app has a handful of Lua 5.1 escapes at most; past this the last E011 stands.
ESCAPE_RETRIES = 100


def lua_lint(code: str, *, luacheck: str = "luacheck", timeout: float = 10.0) -> list[LintWarning]:
    """The warnings of `code`, in luacheck's order (line, then column). A syntax error is one
    E011 entry (the caller usually reports the luajit syntax check's words instead)."""
    exe = shutil.which(luacheck)
    if exe is None:
        raise LuacheckUnavailable(f"{luacheck} not found (Debian package lua-check; scripts/install-deps.sh --test)")
    source = code
    for _ in range(ESCAPE_RETRIES):
        warnings = _luacheck(source, exe, timeout)
        blanked = _blank_lua51_escape(source, warnings)
        if blanked is None:
            break
        source = blanked
    else:
        warnings = _luacheck(source, exe, timeout)
    if any(w.code == "W113" and w.message.endswith("'arg'") for w in warnings):
        given = _vararg_arg_given(source, timeout)
        if given != source:
            warnings = _moved_back(_luacheck(given, exe, timeout), source, given)
    return warnings


def _vararg_arg_given(source: str, timeout: float) -> str:
    """`source` as the runtime reads it: each vararg function that names `arg` but never `...`
    given its local `arg` (on the line of its parameter list: line numbers unchanged)."""
    luajit = shutil.which("luajit")
    if luajit is None:
        raise LuacheckUnavailable("luajit not found (scripts/install-deps.sh)")
    try:
        proc = subprocess.run([luajit, "-e", _VARARG_ARG_LUA], input=source.encode("utf-8"),
                              env={**os.environ, "LUA_PATH": f"{SANDBOX_LIB}/?.lua;;"},
                              capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise LuacheckUnavailable(f"luajit took longer than {timeout:.0f} s") from exc
    if proc.returncode != 0:
        raise LuacheckUnavailable(f"splaylab.lua51.vararg_arg failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode("utf-8")


def _moved_back(warnings: list[LintWarning], source: str, given: str) -> list[LintWarning]:
    """Warnings on `given` placed on `source`: columns after a written local move back by its
    length; a warning on the written local itself (unused, shadowing) is dropped."""
    old_lines, new_lines = source.split("\n"), given.split("\n")
    inserts: dict[int, list[int]] = {}  # line -> 1-based columns where a written local starts
    for n, (old, new) in enumerate(zip(old_lines, new_lines), start=1):
        i = j = 0
        while old != new and j < len(new):
            if new.startswith(VARARG_ARG_LOCAL, j) and not old.startswith(VARARG_ARG_LOCAL, i):
                inserts.setdefault(n, []).append(j + 1)
                j += len(VARARG_ARG_LOCAL)
            else:
                i, j = i + 1, j + 1
    size = len(VARARG_ARG_LOCAL)
    moved = []
    for w in warnings:
        starts = inserts.get(w.line, [])
        if any(start <= w.column < start + size for start in starts):
            continue
        shift = size * sum(1 for start in starts if start < w.column)
        moved.append(LintWarning(w.line, w.column - shift, w.end_column - shift, w.code, w.message))
    return moved


def _blank_lua51_escape(source: str, warnings: list[LintWarning]) -> str | None:
    """`source` with the backslash of the escape luacheck refused replaced by a space (lengths and
    positions kept), or None when no warning is such an escape."""
    for w in warnings:
        if w.code != "E011" or not w.message.startswith("invalid escape sequence"):
            continue
        lines = source.split("\n")
        if not 1 <= w.line <= len(lines):
            return None
        text = lines[w.line - 1]
        slash = text.rfind("\\", 0, w.column)  # luacheck's columns count characters, from 1
        if slash < 0:
            return None
        lines[w.line - 1] = text[:slash] + " " + text[slash + 1:]
        return "\n".join(lines)
    return None


def _luacheck(source: str, exe: str, timeout: float) -> list[LintWarning]:
    with tempfile.TemporaryDirectory(prefix="splaylab-lint-") as tmp:
        path = Path(tmp) / "app.lua"
        path.write_text(source, encoding="utf-8")
        try:
            proc = subprocess.run(luacheck_argv(str(path), exe), capture_output=True, text=True,
                                  timeout=timeout, check=False, cwd=tmp)
        except subprocess.TimeoutExpired as exc:
            raise LuacheckUnavailable(f"luacheck took longer than {timeout:.0f} s") from exc
    if proc.returncode not in (0, 1, 2):  # 0 clean, 1 warnings, 2 errors (syntax)
        raise LuacheckUnavailable(f"luacheck exited with {proc.returncode}: {proc.stderr.strip()}")
    warnings = []
    for line in proc.stdout.splitlines():
        m = _LINE_RE.match(line)
        if m:
            warnings.append(LintWarning(int(m["line"]), int(m["col"]), int(m["end"]), m["code"], m["msg"]))
    return warnings
