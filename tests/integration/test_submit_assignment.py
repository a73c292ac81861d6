"""An assignment's whole path (docs/grading.md): a new student joins the demo course with its
join code, submits with `./splaylab submit --assignment chord --follow`, the Celery worker grades
it with the real grader (simulated runs), and the CLI prints the report; an immediate second
submission is refused by the rate limit with a message saying when the next is allowed."""
from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.stack

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "assignments" / "chord" / "reference" / "app.lua"


def test_a_student_joins_submits_from_the_cli_and_reads_the_graded_report(stack, tmp_path: Path) -> None:
    (demo,) = [c for c in stack.api("GET", "/api/courses/", token=stack.teacher_token)
               if c["slug"] == "distributed-systems-demo"]
    token = stack.user_create("cli-grading-student")
    joined = stack.api("POST", "/api/courses/join/", {"code": demo["join_code"]}, token=token)
    assert joined["role"] == "student"
    mine = tmp_path / "app.lua"
    mine.write_text(REFERENCE.read_text())

    result = stack.cli("submit", "--assignment", "chord", str(mine), "--follow", token=token, timeout=300)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Chord: lookups on a ring: 100 / 100" in result.stdout
    assert "PASS   15.0/15    Every successor is right" in result.stdout
    # what the grader measured, said in the report
    assert "hops measured from the trace" in result.stdout
    # the hidden check is neither shown nor counted before the deadline
    assert "Lookup latency" not in result.stdout and "1 hidden check(s)" in result.stdout

    again = stack.cli("submit", "--assignment", "chord", str(mine), token=token)
    assert again.returncode == 2
    assert "HTTP 429" in again.stderr and "next" in again.stderr.lower()

    nowhere = stack.cli("submit", "--assignment", "paxos", str(mine), token=token)
    assert nowhere.returncode == 2 and "no assignment 'paxos'" in nowhere.stderr
