"""`./splaylab check APP.lua [...] [--json]`: the editor's diagnostics, offline.

First the syntax check the service runs before a job (luajit, lib/lua_syntax.py), then, when the
file compiles, the lint the browser's editor shows while typing (luacheck with SPLAY's globals,
lib/lua_lint.py): undefined and unused variables, shadowing, unreachable code.
Exit 0: clean; 1: warnings or a syntax error; 2: bad usage, a missing file or no luacheck.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lib.lua_lint import LuacheckUnavailable, lua_lint
from lib.lua_syntax import LuaCheckUnavailable, lua_syntax_check


def check_file(path: Path) -> dict[str, object]:
    code = path.read_text(encoding="utf-8", errors="replace")
    syntax = lua_syntax_check(code, path.name)
    if syntax is not None:
        return {"file": str(path), "syntax_error": {"line": syntax.line, "message": syntax.message}, "warnings": []}
    return {"file": str(path), "syntax_error": None, "warnings": [w.to_dict() for w in lua_lint(code)]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="splaylab check", description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path, metavar="APP.lua")
    parser.add_argument("--json", action="store_true", help="one JSON object per file, one per line")
    args = parser.parse_args(argv)
    status = 0
    for path in args.files:
        if not path.is_file():
            print(f"splaylab check: {path}: no such file", file=sys.stderr)
            return 2
        try:
            result = check_file(path)
        except (LuacheckUnavailable, LuaCheckUnavailable) as err:
            print(f"splaylab check: {err}", file=sys.stderr)
            return 2
        warnings: list[dict[str, object]] = result["warnings"]  # type: ignore[assignment]
        syntax = result["syntax_error"]
        if syntax or warnings:
            status = 1
        if args.json:
            print(json.dumps(result))
            continue
        if isinstance(syntax, dict):
            print(f"{path}: syntax error: {syntax['message']}")
        for w in warnings:
            print(f"{path}:{w['line']}:{w['column']}: ({w['code']}) {w['message']}")
        if not syntax and not warnings:
            print(f"{path}: OK")
    return status
