"""`./splaylab check`: syntax first, then the lint with SPLAY's globals (needs luajit and luacheck)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli import check


def write(tmp_path: Path, code: str) -> Path:
    path = tmp_path / "app.lua"
    path.write_text(code)
    return path


def test_splay_globals_are_known_and_a_typo_is_flagged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, 'require "splay.base"\nlocal rpc = require "splay.rpc"\n'
                 "function ping_me() return job.position end\n"
                 "events.run(function()\n  rpc.server(job.me.port)\n  log.info(misc.time(), socket)\n"
                 "  evnts.sleep(1)\nend)\n")
    assert check.main([str(path), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["syntax_error"] is None
    assert [(w["line"], w["column"], w["code"], w["message"]) for w in result["warnings"]] == [
        (7, 3, "W113", "accessing undefined variable 'evnts'")]


def test_unused_shadowing_and_unreachable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "local a = 1\nlocal function f()\n  local a = 2\n  return a\nend\n"
                 "f()\nwhile true do end\nprint(1)\n")
    assert check.main([str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{path}:1:7: (W211) unused variable 'a'",
                   f"{path}:3:9: (W431) shadowing upvalue 'a' on line 1",
                   f"{path}:8:1: (W511) unreachable code"]


def test_syntax_error_comes_from_luajit_with_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "print(1)\nlocal x = = 2\n")
    assert check.main([str(path)]) == 1
    assert capsys.readouterr().out.strip() == f"{path}: syntax error: app.lua:2: unexpected symbol near '='"


def test_clean_file_exits_0_and_missing_file_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check.main([str(write(tmp_path, 'require "splay.base"\nevents.run(function() events.exit() end)\n'))]) == 0
    assert capsys.readouterr().out.strip().endswith("OK")
    assert check.main([str(tmp_path / "nope.lua")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_lua51_escapes_are_read_as_the_runtime_reads_them_and_the_rest_is_linted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # SPLAY's bt.lua style: "\d" and "\." are Lua 5.1 escapes LuaJIT refuses and the runtime accepts
    # (sandbox/lib/splaylab/lua51.lua); luacheck's E011 for them is not the answer, the lint after is
    path = write(tmp_path, 'local p = "^(\\d+)\\.(%d+)$"\nlocal q = "é \\q"\nprint(p, q, undefined_x)\n')
    assert check.main([str(path), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["syntax_error"] is None
    assert [(w["line"], w["column"], w["code"]) for w in result["warnings"]] == [(3, 13, "W113")]


@pytest.mark.parametrize(("code", "expected"), [
    # a vararg function that never names ... has Lua 5.1's local arg (SPLAY's pastry.lua)
    ("local function call(n, ...)\n  return unpack(arg)\nend\nreturn call\n", []),
    ("function outer(...)\n  return function() return arg.n end\nend\n", []),
    # naming ..., taking no varargs, or outside any function: arg is an undefined global
    ("local function f(...)\n  return select('#', ...), arg\nend\nreturn f\n",
     [(2, 28, "W113", "accessing undefined variable 'arg'")]),
    ("local function g(a)\n  return a, arg\nend\nreturn g\n", [(2, 13, "W113", "accessing undefined variable 'arg'")]),
    # the rest of a line that got the local keeps its own columns; the local itself is never blamed
    ("local arg = 1\nlocal function f(...) return 2 end\nreturn f, arg\n", []),
    ("local function h(...) return arg, y end return h, function(...) return arg, zz end\n",
     [(1, 35, "W113", "accessing undefined variable 'y'"), (1, 77, "W113", "accessing undefined variable 'zz'")]),
])
def test_lua51_implicit_arg_of_a_vararg_function(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  code: str, expected: list) -> None:
    """The editor's lint says the same (frontend/src/lib/lua-lint/__tests__/vararg-arg.test.ts)."""
    check.main([str(write(tmp_path, code)), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert [(w["line"], w["column"], w["code"], w["message"]) for w in result["warnings"]] == expected
