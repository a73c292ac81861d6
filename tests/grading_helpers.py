"""Grading a file of an assignment folder in the assignment tests (tests/grading/)."""
from __future__ import annotations

from pathlib import Path

from grading.grader import Assignment, grade


def graded(assignment: Assignment, rel: str, cache: Path) -> tuple[float, dict[str, dict], dict]:
    """(score, checks by name, the whole report) of the folder's file rel graded as a submission."""
    assert assignment.folder is not None
    report = grade(assignment, (assignment.folder / rel).read_text(), cache_dir=cache).to_dict()
    return report["score"], {c["name"]: c for c in report["checks"]}, report


def failed(checks: dict[str, dict]) -> set[str]:
    return {name for name, c in checks.items() if not c["passed"]}
