"""backend/cli/services.py's command line: start or stop, nothing else (an unknown word used to
be taken for `start` on the default ports)."""
from __future__ import annotations

import pytest

from cli import services


@pytest.mark.parametrize("argv", [["status", "var/x"], ["start"], ["stop", "var/x", "1"], []])
def test_anything_but_start_or_stop_gets_the_usage(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        services.main(argv)
    assert str(refused.value).startswith("usage: services.py start|stop VAR [PG_PORT REDIS_PORT]")
    if argv and argv[0] == "status":
        assert "(not 'status')" in str(refused.value)
