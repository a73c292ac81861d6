"""Lint of a SPLAY app with luacheck, the rules the browser's editor flags while typing.

Model-free: give it source text, get the warnings (line, column, code, message) in luacheck's
own words. The globals are the node's (sandbox/splay_api.json: the standard ones the sandbox
keeps, plus events, log, misc, job and socket); setting a global defines it (`allow_defined`:
rpc.server serves the app's global functions, so SPLAY apps set globals on purpose). Only the
rules below are reported; frontend/src/lib/lua-lint implements the same ones on luaparse's tree
and a Vitest test compares both on fixtures (docs/editor.md). An escape LuaJIT refuses but Lua 5.1
read as the character ("\\d": SPLAY's bt.lua; the runtime accepts it, sandbox/lib/splaylab/lua51.lua)
has its backslash blanked and is linted again, as the editor does, so both report the same.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

SPLAY_API = Path(__file__).resolve().parents[2] / "sandbox" / "splay_api.json"

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
            return warnings
        source = blanked
    return _luacheck(source, exe, timeout)


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
