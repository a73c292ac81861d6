"""Assignments of a course, students' submissions and the gradebook's overrides.

An Assignment keeps every text the grader needs (the service never reads the folder again
after loading it); a Submission's source never changes, its grading may be redone (regrade),
the previous results kept in `history`."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from courses.models import Course


class Assignment(models.Model):
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="assignments")
    slug = models.SlugField(max_length=100)
    title = models.CharField(max_length=200)
    summary = models.CharField(max_length=500, blank=True)
    handout = models.TextField(blank=True, help_text="markdown, shown beside the editor")
    starter = models.TextField(blank=True, help_text="the student's first app.lua")
    reference = models.TextField(blank=True, help_text="the instructors' solution: never shown to students")
    harness = models.TextField(blank=True, help_text="drives the submission; students may read it")
    spec = models.JSONField(default=dict, help_text="assignment.yaml, parsed")
    files = models.JSONField(default=dict, help_text="path -> text: churn scenarios, checks.py")
    folder = models.CharField(max_length=500, blank=True, help_text="where it was loaded from")
    deadline = models.DateTimeField(null=True, blank=True)
    published = models.BooleanField(default=False, help_text="students see published assignments only")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["deadline", "slug"]
        constraints = [models.UniqueConstraint(fields=["course", "slug"], name="assignment_slug_unique")]

    def __str__(self) -> str:
        return f"{self.course.slug}/{self.slug}"


class Submission(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        GRADED = "graded"
        ERROR = "error"   # the grader failed (not the student's code: that is graded, 0 points)

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="submissions")
    student = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="submissions")
    created_at = models.DateTimeField(auto_now_add=True)
    source = models.TextField()
    sha256 = models.CharField(max_length=64)
    # The current grading (services write these with conditional updates, never the above).
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    attempt = models.PositiveIntegerField(default=1, help_text="1, then +1 per regrade")
    score = models.FloatField(null=True, blank=True, help_text="0-100, before the late penalty")
    late_days = models.PositiveIntegerField(default=0)
    penalty_percent = models.FloatField(default=0)
    final_score = models.FloatField(null=True, blank=True, help_text="score after the late penalty")
    report = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    graded_at = models.DateTimeField(null=True, blank=True)
    history = models.JSONField(default=list, blank=True,
                               help_text="earlier gradings, oldest first (a regrade pushes the current one)")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["assignment", "student", "created_at"])]

    def __str__(self) -> str:
        return f"submission {self.id} of {self.assignment} by {self.student_id}"


class GradeOverride(models.Model):
    """An instructor's or TA's word on one student's grade for one assignment: a score that
    replaces the submissions' (or none: a comment only)."""
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="overrides")
    student = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    score = models.FloatField(null=True, blank=True)
    comment = models.TextField(blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["assignment", "student"], name="override_unique")]


class RegradeRequest(models.Model):
    """A student's request that staff look at a submission's grading again, with their message,
    and the staff's answer (a regrade, or an explanation)."""
    class State(models.TextChoices):
        OPEN = "open"
        ANSWERED = "answered"

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="regrade_requests")
    student = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    message = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    state = models.CharField(max_length=8, choices=State.choices, default=State.OPEN)
    answer = models.TextField(blank=True)
    answered_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    answered_at = models.DateTimeField(null=True, blank=True)
    regraded = models.BooleanField(default=False, help_text="the answer queued a regrade of the submission")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["submission"], condition=models.Q(state="open"),
                                               name="regrade_request_one_open")]
