import pytest

from lib.lua_syntax import LuaCheckUnavailable, LuaSyntaxError, lua_syntax_check


def test_valid_code_passes() -> None:
    assert lua_syntax_check("print('hi')\nlocal x = 1\n") is None


def test_error_reports_filename_line_and_message() -> None:
    err = lua_syntax_check("print('ok')\nlocal x = = 2\n", "app.lua")
    assert isinstance(err, LuaSyntaxError)
    assert err.line == 2
    assert err.message.startswith("app.lua:2: ")
    assert "near '='" in err.message


def test_unfinished_block_reports_last_line() -> None:
    err = lua_syntax_check("function f()\n  return 1\n", "main.lua")
    assert err is not None and err.line == 3
    assert err.message.startswith("main.lua:3:")


def test_code_is_not_executed() -> None:
    # os.exit(7) would change the exit status if the chunk ran.
    assert lua_syntax_check("os.exit(7)") is None


def test_missing_luajit_is_an_infrastructure_error() -> None:
    with pytest.raises(LuaCheckUnavailable):
        lua_syntax_check("x = 1", luajit="/nonexistent/luajit")


def test_lua51_unknown_escape_is_accepted_as_the_node_runtime_reads_it() -> None:
    # SPLAY ran Lua 5.1, which read "\d" as "d"; LuaJIT's lexer refuses it (sandbox/lib/splaylab/lua51.lua)
    assert lua_syntax_check('local p = "^(\\d+)\\.(%d+)$"\n', "app.lua") is None


def test_an_escape_error_elsewhere_is_still_reported() -> None:
    err = lua_syntax_check('local p = "\\d"\nlocal x = = 2\n', "app.lua")
    assert err is not None and err.line == 2


def test_a_source_checked_before_is_answered_from_memory_and_an_unavailable_check_is_not(tmp_path) -> None:
    """A class resubmits the same code: one luajit process per distinct source."""
    counter = tmp_path / "count"
    fake = tmp_path / "luajit"
    fake.write_text(f"#!/bin/sh\necho x >> {counter}\nexec luajit \"$@\"\n")
    fake.chmod(0o755)
    code = "local x = = 1\n"
    first = lua_syntax_check(code, luajit=str(fake))
    assert first is not None and first.line == 1
    assert lua_syntax_check(code, luajit=str(fake)) == first
    assert lua_syntax_check("local y = 2\n", luajit=str(fake)) is None
    assert len(counter.read_text().split()) == 2  # two distinct sources, two processes
    broken = tmp_path / "broken"
    broken.write_text("#!/bin/sh\nexit 9\n")
    broken.chmod(0o755)
    for _ in range(2):
        with pytest.raises(LuaCheckUnavailable):
            lua_syntax_check("local z = 3\n", luajit=str(broken))
