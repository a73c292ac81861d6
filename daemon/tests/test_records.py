"""Pure helpers: output lines → records, exit codes → states and reasons, backoff."""
from __future__ import annotations

import itertools
import signal

from splayd.connection import backoff_delays
from splayd.instances import Limits, exit_outcome
from splayd.records import TRUNCATED_MARK, LineSplitter, parse_record

LIMITS = Limits(max_mem=256 * 2**20, max_cpu=60, max_open_files=256, max_file_size=16 * 2**20, duration=30)


class TestParseRecord:
    def test_known_levels_are_parsed(self) -> None:
        for level in ("debug", "info", "warning", "error", "print", "metric"):
            assert parse_record(f"{level}\thello\tworld".encode()) == (level, "hello\tworld")

    def test_anything_else_on_stdout_is_an_error_line(self) -> None:
        assert parse_record(b"PANIC: unprotected error") == ("error", "PANIC: unprotected error")
        assert parse_record(b"fatal\tx") == ("error", "fatal\tx")

    def test_stderr_is_always_error_even_when_it_looks_like_a_record(self) -> None:
        assert parse_record(b"info\tx", stream="stderr") == ("error", "info\tx")

    def test_invalid_utf8_is_escaped_byte_by_byte_and_nul_kept(self) -> None:
        assert parse_record(b"print\t\xff\xfe") == ("print", "\\xff\\xfe")
        assert parse_record("print\ta\x00b\xe9\u20ac".encode() + b"\xc3") == ("print", "a\x00b\xe9\u20ac\\xc3")

    def test_a_cut_inside_a_character_drops_the_partial_character(self) -> None:
        cut = "print\tx\u20ac".encode()[:-1]  # two of the euro sign's three bytes
        assert parse_record(cut, truncated=True) == ("print", "x" + TRUNCATED_MARK)
        assert parse_record(cut, truncated=False) == ("print", "x\\xe2\\x82")

    def test_truncated_lines_are_marked(self) -> None:
        assert parse_record(b"print\tabc", truncated=True) == ("print", "abc" + TRUNCATED_MARK)


class TestLineSplitter:
    def test_lines_split_across_chunks(self) -> None:
        s = LineSplitter()
        assert s.feed(b"print\tab") == []
        assert s.feed(b"c\ninfo\tx\npri") == [(b"print\tabc", False), (b"info\tx", False)]
        assert s.feed(b"nt\ty\n") == [(b"print\ty", False)]
        assert s.finish() == []

    def test_last_line_without_newline_comes_out_at_the_end(self) -> None:
        s = LineSplitter()
        assert s.feed(b"error\tpartial") == []
        assert s.finish() == [(b"error\tpartial", False)]

    def test_a_long_line_is_cut_at_the_limit_and_its_tail_dropped(self) -> None:
        s = LineSplitter(limit=10)
        out = s.feed(b"x" * 25)
        out += s.feed(b"y" * 5 + b"\nnext\n")
        assert out == [(b"x" * 10, True), (b"next", False)]

    def test_a_line_of_exactly_the_limit_is_kept_whole(self) -> None:
        assert LineSplitter(limit=4).feed(b"abcd\n") == [(b"abcd", False)]


class TestExitOutcome:
    def test_exit_codes_of_the_contract(self) -> None:
        assert exit_outcome(0, LIMITS, None, 1) == ("ENDED", "ended normally")
        assert exit_outcome(1, LIMITS, "app.lua:3: boom", 1) == ("FAILED", "runtime error: app.lua:3: boom")
        assert exit_outcome(2, LIMITS, "app.lua:1: unexpected symbol near '='", 1) == (
            "FAILED",
            "Lua syntax error: app.lua:1: unexpected symbol near '='",
        )
        assert exit_outcome(4, LIMITS, "app.lua: not enough memory", 1) == ("FAILED", "killed: memory limit of 256 MB reached")

    def test_signals_name_the_limit(self) -> None:
        assert exit_outcome(-signal.SIGXCPU, LIMITS, None, 61) == ("FAILED", "killed: CPU time limit of 60 s exceeded")
        assert exit_outcome(-signal.SIGKILL, LIMITS, None, 62) == ("FAILED", "killed: CPU time limit of 60 s exceeded")
        assert exit_outcome(-signal.SIGKILL, LIMITS, None, 3) == ("FAILED", "killed by signal 9 (SIGKILL)")
        assert exit_outcome(-signal.SIGSEGV, LIMITS, None, 3) == ("FAILED", "killed by signal 11 (SIGSEGV)")

    def test_a_luajit_panic_out_of_memory_is_the_memory_limit(self) -> None:
        panic = "PANIC: unprotected error in call to Lua API (not enough memory)"
        assert exit_outcome(1, LIMITS, panic, 1) == ("FAILED", "killed: memory limit of 256 MB reached")


def test_backoff_doubles_from_half_a_second_to_five_with_jitter() -> None:
    delays = list(itertools.islice(backoff_delays(), 8))
    for got, base in zip(delays, [0.5, 1, 2, 4, 5, 5, 5, 5]):
        assert base * 0.75 <= got <= min(5, base * 1.25)
    assert len({round(d, 6) for d in delays}) > 3  # jittered, not constant
