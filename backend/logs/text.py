"""Node output as text PostgreSQL can store and the page can show (docs/decisions.md, "Node
output is data").

A node may print any bytes. The daemon (and the simulator) decode them as UTF-8 with each
invalid byte written `\\xNN` (Python's backslashreplace); here, at the controller, the only
characters PostgreSQL refuses are made visible the same way: NUL becomes the four characters
`\\x00`, and a lone surrogate (only a broken or hostile sender can put one in a JSON frame)
becomes `\\udNNN`. Everything else, control characters included, is stored as it came. A text
longer than `limit` characters is cut and says so."""
from __future__ import annotations

from typing import Any

MAX_TEXT = 8192  # characters: a runaway line should not bloat the table
NUL_ESCAPE = "\\x00"


def truncated_mark(limit: int) -> str:
    return f" [line truncated at {limit} characters]"


def storable_text(value: Any, limit: int | None = MAX_TEXT) -> str:
    """`value` as text without NUL or lone surrogates, at most `limit` characters (None: any)."""
    text = value if isinstance(value, str) else str(value)
    if "\x00" in text:
        text = text.replace("\x00", NUL_ESCAPE)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates, e.g. a JSON "\ud800"
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if limit is not None and len(text) > limit:
        mark = truncated_mark(limit)
        text = text[: max(0, limit - len(mark))] + mark
    return text
