"""An assignment shaped like assignments/chord (one visible check family, one hidden check),
without reading the folder: most tests are about who sees what, not about grading."""
from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from accounts.models import User
from courses.models import Course
from grading.models import Assignment, Submission

SPEC: dict[str, Any] = {
    "title": "Chord",
    "runs": [{"name": "ring", "mode": "sim", "nodes": 16, "time": 60, "seed": 3}],
    "checks": [
        {"name": "No errors", "check": "no_runtime_errors", "weight": 20},
        {"name": "Ring is right", "check": "ring_correct", "weight": 30},
        {"name": "Latency like the reference's", "check": "latency_vs_reference", "weight": 50,
         "hidden": True, "params": {"percentile": 90, "max_ratio": 1.5}},
    ],
}

# What the grader reports for SPEC when the visible checks pass and the hidden one fails.
REPORT: dict[str, Any] = {
    "assignment": "chord", "score": 50.0, "max_score": 100, "score_visible": 100.0,
    "submission_sha256": "", "compile_error": None,
    "runs": [{"name": "ring", "mode": "sim", "nodes": 16, "time": 60, "seed": 3, "wall_s": 1.0, "failure": None}],
    "checks": [
        {"name": "No errors", "check": "no_runtime_errors", "run": "ring", "passed": True, "points": 20,
         "max_points": 20, "message": "no node logged an error", "hidden": False},
        {"name": "Ring is right", "check": "ring_correct", "run": "ring", "passed": True, "points": 30,
         "max_points": 30, "message": "16/16 successors right", "hidden": False},
        {"name": "Latency like the reference's", "check": "latency_vs_reference", "run": "ring",
         "passed": False, "points": 0, "max_points": 50, "message": "p90 3.1x the reference's (at most 1.5x)",
         "hidden": True},
    ],
}

SECRET_REFERENCE = "-- REFERENCE SOLUTION: the instructors' own\n"


def assignment_make(course: Course, slug: str = "chord", *, published: bool = True,
                    deadline: datetime | None = None, **extra: object) -> Assignment:
    fields: dict[str, Any] = {
        "title": "Chord", "summary": "lookups on a ring", "handout": "# Chord\nBuild it.",
        "starter": "-- your Chord here\n", "reference": SECRET_REFERENCE, "harness": "-- the harness\n",
        "spec": SPEC, "files": {"checks.py": "def secret(ctx): ...\n"}, **extra}
    return Assignment.objects.create(course=course, slug=slug, published=published, deadline=deadline, **fields)


def submission_make(assignment: Assignment, student: User, *, source: str = "print('mine')\n",
                    status: str = Submission.Status.QUEUED, **extra: object) -> Submission:
    submission = Submission.objects.create(assignment=assignment, student=student, source=source,
                                           sha256=hashlib.sha256(source.encode()).hexdigest(), status=status,
                                           **extra)
    created_at = extra.get("created_at")
    if created_at is not None:  # auto_now_add ignores a given value
        Submission.objects.filter(id=submission.id).update(created_at=created_at)
        submission.refresh_from_db()
    return submission


def graded_make(assignment: Assignment, student: User, score: float, *, created_at: datetime | None = None,
                penalty_percent: float = 0, late_days: int = 0) -> Submission:
    final = round(score * (100 - penalty_percent) / 100, 2)
    return submission_make(assignment, student, status=Submission.Status.GRADED, score=score, final_score=final,
                           report={**REPORT, "score": score}, penalty_percent=penalty_percent,
                           late_days=late_days, created_at=created_at)
