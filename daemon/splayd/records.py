"""The node's output: bytes → lines (capped) → records (level, text).

A node writes `LEVEL<TAB>TEXT` per line on stdout (docs/architecture.md, "Node runtime").
Anything else on stdout, and everything on stderr, is logged at level ``error``.
"""
from __future__ import annotations

import codecs

LEVELS = frozenset({"debug", "info", "warning", "error", "print", "metric", "probe", "trace"})
# The measurement plane (docs/trace.md): written by the runtime and the assignment's harness,
# never by the app, bounded by the runtime (trace.max_events), so the app's log rate limit does
# not apply to them: an app printing without end cannot erase its own trace.
MEASUREMENT_LEVELS = frozenset({"probe", "trace"})
MAX_LINE_BYTES = 4096
TRUNCATED_MARK = " [line truncated at 4096 bytes]"


class LineSplitter:
    """Split a byte stream into lines of at most `limit` bytes.

    feed() returns complete lines as (bytes, truncated). A line longer than the limit is cut
    at the limit and the rest of it, up to the next newline, is dropped.
    """

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self.limit = limit
        self._buf = bytearray()
        self._skipping = False  # inside the dropped tail of an over-long line

    def feed(self, data: bytes) -> list[tuple[bytes, bool]]:
        out: list[tuple[bytes, bool]] = []
        start = 0
        n = len(data)
        while start < n:
            nl = data.find(b"\n", start)
            end = n if nl < 0 else nl
            if self._skipping:
                if nl >= 0:
                    self._skipping = False
                start = end + 1
                continue
            self._buf += data[start:end]
            if len(self._buf) > self.limit:
                out.append((bytes(self._buf[: self.limit]), True))
                self._buf.clear()
                self._skipping = nl < 0
            elif nl >= 0:
                out.append((bytes(self._buf), False))
                self._buf.clear()
            start = end + 1
        return out

    def finish(self) -> list[tuple[bytes, bool]]:
        """The last line when the stream ends without a newline."""
        if self._buf:
            line = bytes(self._buf)
            self._buf.clear()
            return [(line, False)]
        return []


def decode_text(line: bytes, truncated: bool = False) -> str:
    """A node's bytes as text, never an error: each byte that is not UTF-8 reads `\\xNN`
    (backslashreplace: the bytes stay readable, not one U+FFFD for any); a NUL stays a NUL
    (the controller shows it as `\\x00`, ../docs/decisions.md "Node output is data"). A line
    cut at the byte limit drops the incomplete character the cut made."""
    decoder = codecs.getincrementaldecoder("utf-8")("backslashreplace")
    return decoder.decode(line, final=not truncated)


def parse_record(line: bytes, truncated: bool = False, stream: str = "stdout") -> tuple[str, str]:
    """One output line → (level, text). Invalid UTF-8 is escaped (decode_text), never rejected."""
    text = decode_text(line, truncated)
    if text.endswith("\r"):
        text = text[:-1]
    level = "error"
    if stream == "stdout":
        head, sep, rest = text.partition("\t")
        if sep and head in LEVELS:
            level, text = head, rest
    if truncated:
        text += TRUNCATED_MARK
    return level, text
