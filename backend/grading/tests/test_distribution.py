"""GET /api/courses/<id>/assignments/<slug>/distribution/: the class's scores per check, for
instructors and TAs only, each student counted once (the submission their gradebook cell counts)."""
from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from courses.tests.factories import client_for
from grading.models import GradeOverride
from grading.tests.factories import REPORT, assignment_make, graded_make


def test_per_check_points_pass_counts_and_histograms(classroom) -> None:
    chord = assignment_make(classroom.course)
    now = timezone.now()
    graded_make(chord, classroom.student, 10.0, created_at=now - timedelta(hours=2))  # superseded below
    graded_make(chord, classroom.student, 50.0, created_at=now - timedelta(hours=1))
    other = graded_make(chord, classroom.other_student, 50.0)
    report = {**REPORT, "checks": [dict(c) for c in REPORT["checks"]]}
    report["checks"][1].update(points=15, passed=False)  # alice: half of "Ring is right"
    other.__class__.objects.filter(id=other.id).update(report=report)
    GradeOverride.objects.create(assignment=chord, student=classroom.other_student, score=95, by=classroom.teacher)
    url = f"/api/courses/{classroom.course.id}/assignments/chord/distribution/"
    body = client_for(classroom.ta).get(url).json()
    assert (body["students"], body["graded"], body["mean_score"]) == (2, 2, 72.5)  # 50 and the override's 95
    assert body["score_histogram"] == [0, 0, 0, 0, 0, 1, 0, 0, 0, 1]
    by_name = {c["name"]: c for c in body["checks"]}
    ring = by_name["Ring is right"]
    assert (ring["students"], ring["max_points"], ring["mean_points"], ring["passed"]) == (2, 30.0, 22.5, 1)
    assert ring["histogram"] == [0, 0, 0, 0, 0, 1, 0, 0, 0, 1]
    hidden = by_name["Latency like the reference's"]
    assert (hidden["hidden"], hidden["passed"], hidden["histogram"][0]) == (True, 0, 2)


def test_students_do_not_see_the_distribution(classroom) -> None:
    assignment_make(classroom.course)
    url = f"/api/courses/{classroom.course.id}/assignments/chord/distribution/"
    assert client_for(classroom.student).get(url).status_code == 403
    assert client_for(classroom.outsider).get(url).status_code == 404
