"""Node output is data (issue 20): a job printing NUL, bytes that are not UTF-8 and a 1 MB line,
live and simulated. The lines reach the page (the API the browser reads) escaped (NUL and each
invalid byte as \\xNN, docs/decisions.md "Node output is data") or cut with a mark; the daemon
stays ONLINE and the next job runs."""
from __future__ import annotations

from pathlib import Path

import pytest

from stack_helpers import RunningStack, running_stack

pytestmark = pytest.mark.stack

BYTES = r"""
print("nul a\0b")
io.write("raw \255\254 bytes\n")
print(string.rep("x", 1024 * 1024))
print("done")
"""
HELLO = 'print("next job runs")\n'


def _check_lines(s: RunningStack, job_id: int, nodes: int = 2) -> None:
    for node in range(1, nodes + 1):
        texts = [ln["text"] for ln in s.logs(job_id, node)]
        assert texts.count("nul a\\x00b") == 1, (node, texts[:10])
        assert texts.count("raw \\xff\\xfe bytes") == 1, (node, texts[:10])
        [long] = [t for t in texts if t.startswith("xxxx")]
        assert "truncated" in long and set(long.split(" [")[0]) == {"x"} and len(long) <= 8192, long[-80:]
        assert "done" in texts, (node, texts[-3:])


def _daemons_online(s: RunningStack) -> None:
    daemons = s.api("GET", "/api/daemons/", token=s.teacher_token)
    assert [d["state"] for d in daemons] == ["ONLINE"], daemons


def test_nul_invalid_utf8_and_a_1_mb_line_live_and_simulated(tmp_path: Path) -> None:
    with running_stack(tmp_path, 8781, "splaylab_it_bytes", 11, daemons=1) as s:
        live = s.api("POST", "/api/jobs/", {"code": BYTES, "nodes": 2, "duration": 30})
        done = s.wait_job(live["id"], {"ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=60)
        assert done["state"] == "ENDED", done
        _check_lines(s, live["id"])
        _daemons_online(s)

        sim = s.api("POST", "/api/jobs/", {"code": BYTES, "nodes": 2, "duration": 5, "mode": "sim"})
        done = s.wait_job(sim["id"], {"ENDED", "FAILED", "KILLED"}, timeout=90)
        assert done["state"] == "ENDED", done
        _check_lines(s, sim["id"])

        nxt = s.api("POST", "/api/jobs/", {"code": HELLO, "nodes": 2, "duration": 30})
        done = s.wait_job(nxt["id"], {"ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=60)
        assert done["state"] == "ENDED", done
        assert [ln["text"] for ln in s.logs(nxt["id"])].count("next job runs") == 2
        _daemons_online(s)
