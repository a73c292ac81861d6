"""Output shapes of the grading API. What a reader may see is decided in selectors
(assignment_checks, submission_view); these only lay it out."""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from courses.selectors import CourseAccess

from .models import Assignment
from .selectors import (FinalGrade, Gradebook, GradebookCell, SubmissionView, assignment_checks, assignment_runs,
                        hidden_revealed)


class AssignmentOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.CharField()
    title = serializers.CharField()
    summary = serializers.CharField()
    deadline = serializers.DateTimeField(allow_null=True)
    published = serializers.BooleanField()
    updated_at = serializers.DateTimeField()


class AssignmentListItemSerializer(AssignmentOutputSerializer):
    my_latest = serializers.SerializerMethodField(
        help_text="your own latest submission: {id, status, final_score} (null: none yet)")

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_my_latest(self, assignment: Assignment) -> dict[str, Any] | None:
        return self.context["latest"].get(assignment.id)

    my_grade = serializers.SerializerMethodField(
        help_text="students: your final grade, as in the gradebook (final_grade_data); null for staff")

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_my_grade(self, assignment: Assignment) -> dict[str, Any] | None:
        grade = self.context.get("grades", {}).get(assignment.id)
        return final_grade_data(grade) if grade is not None else None


def assignment_detail_data(assignment: Assignment, *, access: CourseAccess) -> dict[str, Any]:
    """Students: handout, starter, harness (read-only), the runs and the visible checks.
    Instructors and TAs: also the reference, the whole spec, the files and the hidden checks."""
    course = assignment.course
    closes_at = assignment.deadline + timedelta(days=course.max_late_days) if assignment.deadline else None
    data = dict(AssignmentOutputSerializer(assignment).data)
    data.update(
        course=course.id, handout=assignment.handout, starter=assignment.starter, harness=assignment.harness,
        runs=assignment_runs(assignment), checks=assignment_checks(assignment, include_hidden=access.is_staff),
        late_penalty_percent=course.late_penalty_percent, max_late_days=course.max_late_days,
        closes_at=serializers.DateTimeField().to_representation(closes_at) if closes_at else None,
        hidden_revealed=hidden_revealed(assignment))
    if access.is_staff:
        data.update(reference=assignment.reference, spec=assignment.spec, files=assignment.files,
                    folder=assignment.folder)
    return data


class SubmissionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="submission.id")
    assignment = serializers.CharField(source="submission.assignment.slug")
    assignment_title = serializers.CharField(source="submission.assignment.title")
    course = serializers.IntegerField(source="submission.assignment.course_id")
    student = serializers.CharField(source="submission.student.username")
    created_at = serializers.DateTimeField(source="submission.created_at")
    deadline = serializers.DateTimeField(source="submission.assignment.deadline", allow_null=True,
                                         help_text="the assignment's (null: none)")
    sha256 = serializers.CharField(source="submission.sha256")
    status = serializers.CharField(source="submission.status")
    attempt = serializers.IntegerField(source="submission.attempt")
    score = serializers.FloatField(allow_null=True, help_text="0-100 before the late penalty; for students "
                                   "before the deadline, the visible checks' share only")
    late_days = serializers.IntegerField(source="submission.late_days")
    penalty_percent = serializers.FloatField(source="submission.penalty_percent")
    final_score = serializers.FloatField(allow_null=True)
    hidden_withheld = serializers.IntegerField(help_text="hidden checks left out of this report until the deadline")
    graded_at = serializers.DateTimeField(source="submission.graded_at", allow_null=True)
    error = serializers.CharField()


class SubmissionDetailOutputSerializer(SubmissionOutputSerializer):
    source = serializers.CharField(source="submission.source")
    report = serializers.DictField()


class RegradeRequestOutputSerializer(serializers.Serializer):
    """What regrade_requests.request_data answers (the schema's description of it)."""
    id = serializers.IntegerField()
    submission = serializers.IntegerField()
    assignment = serializers.CharField(help_text="the assignment's slug")
    student = serializers.CharField(help_text="the student's username")
    message = serializers.CharField()
    created_at = serializers.DateTimeField()
    state = serializers.ChoiceField(choices=["open", "answered"])
    answer = serializers.CharField(allow_blank=True)
    answered_by = serializers.CharField(allow_null=True)
    answered_at = serializers.DateTimeField(allow_null=True)
    regraded = serializers.BooleanField(help_text="the answer queued a regrade of the submission")


def submission_data(view: SubmissionView, *, access: CourseAccess, detail: bool,
                    final_grade: FinalGrade | None = None) -> dict[str, Any]:
    """detail: with the source, the report and the student's final grade for the assignment
    (`final_grade`, null when the submitter is no student of the course)."""
    data = dict((SubmissionDetailOutputSerializer if detail else SubmissionOutputSerializer)(view).data)
    if detail:
        data["final_grade"] = final_grade_data(final_grade) if final_grade is not None else None
    if detail and access.is_staff:
        data["history"] = view.submission.history
    return data


def _override_data(cell: GradebookCell) -> dict[str, Any] | None:
    override = cell.override
    return None if override is None else {
        "score": override.score, "comment": override.comment, "by": override.by.username if override.by else None,
        "at": serializers.DateTimeField().to_representation(override.at)}


def final_grade_data(grade: FinalGrade) -> dict[str, Any]:
    """{score (null: none yet, or withheld), source ("override", "submission" or null), submission
    (the id that counts), override ({score, comment, by, at} or null), hidden_withheld}."""
    cell = grade.cell
    return {"score": grade.score, "source": cell.source,
            "submission": cell.submission.id if cell.submission is not None else None,
            "override": _override_data(cell), "hidden_withheld": grade.hidden_withheld}


def gradebook_cell_data(cell: GradebookCell) -> dict[str, Any]:
    sub = cell.submission
    return {
        "assignment": cell.assignment.slug, "score": cell.score, "source": cell.source,
        "submissions": cell.submissions,
        "submission": None if sub is None else {
            "id": sub.id, "score": sub.score, "final_score": sub.final_score, "late_days": sub.late_days,
            "penalty_percent": sub.penalty_percent, "created_at": serializers.DateTimeField().to_representation(
                sub.created_at)},
        "override": _override_data(cell),
    }


def gradebook_data(book: Gradebook) -> dict[str, Any]:
    return {
        "course": book.course.id,
        "assignments": [dict(AssignmentOutputSerializer(a).data) for a in book.assignments],
        "rows": [{"student": {"id": s.id, "username": s.username, "name": s.get_full_name(), "email": s.email},
                  "cells": [gradebook_cell_data(c) for c in cells]} for s, cells in book.rows],
    }
