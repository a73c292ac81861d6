"""Writes on assignments, submissions and overrides.

A submission is created queued and graded by the Celery task `grading.tasks.submission_grade`
(queued on commit). The task claims it by a conditional update (queued → running) and writes
its result only if the submission is still in the attempt it claimed: a regrade (attempt + 1,
the current result pushed onto `history`) in between makes the older grading's result moot.
"""
from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from rest_framework import status
from rest_framework.exceptions import ValidationError

from accounts.models import User
from courses.models import Course, Membership
from lib.errors import ApplicationError
from lti.hooks import grade_changed  # the LMS gets every grade change (lti/README.md)

from .live import submission_status_publish
from .models import Assignment, GradeOverride, Submission

log = logging.getLogger(__name__)

MAX_SOURCE_BYTES = 256 * 1024
DAY = timedelta(days=1)
Status = Submission.Status

# grade(assignment, source) -> the report dict of docs/grading.md ("The report").
GradeFn = Callable[[Assignment, str], dict[str, Any]]


# ---- late policy --------------------------------------------------------------------------

def late_days_for(*, deadline: datetime | None, at: datetime) -> int:
    """Started days after the deadline: 1 s late is 1 day, 24 h 1 s is 2."""
    if deadline is None or at <= deadline:
        return 0
    return math.ceil((at - deadline) / DAY)


def penalty_percent_for(*, late_days: int, per_day: float) -> float:
    return float(min(100.0, late_days * per_day))


def final_score_for(*, score: float, penalty_percent: float) -> float:
    return round(score * (100.0 - penalty_percent) / 100.0, 2)


def _late(assignment: Assignment, at: datetime) -> tuple[int, float]:
    days = late_days_for(deadline=assignment.deadline, at=at)
    return days, penalty_percent_for(late_days=days, per_day=assignment.course.late_penalty_percent)


# ---- assignments --------------------------------------------------------------------------

def _folder_label(path: Path) -> str:
    """The folder relative to the repository when inside it (assignments/chord), else absolute."""
    path = path.resolve()
    try:
        return str(path.relative_to(settings.REPO_DIR))
    except ValueError:
        return str(path)


def assignment_load_from_folder(*, course: Course, path: Path | str) -> tuple[Assignment, bool]:
    """Read an assignment folder (docs/grading.md) and create or update the course's
    assignment of the same slug (the folder's name). Everything the grader needs is copied
    into the row; the deadline and `published` are the instructors' and stay as they are.
    A bad folder raises ApplicationError with the grader's message (file, key, problem)."""
    from grading.grader import load_assignment
    from grading.grader.spec import SpecError

    path = Path(path)
    try:
        loaded = load_assignment(path)
    except SpecError as exc:
        raise ApplicationError(str(exc)) from None
    fields = {"title": loaded.title, "summary": loaded.summary, "handout": loaded.handout,
              "starter": loaded.starter, "reference": loaded.reference, "harness": loaded.harness,
              "spec": loaded.spec, "files": dict(loaded.files), "folder": _folder_label(path)}
    assignment, created = Assignment.objects.update_or_create(course=course, slug=loaded.slug,
                                                              defaults=fields)
    return assignment, created


def assignment_grader_object(assignment: Assignment) -> Any:
    """The grader's own Assignment, built from the row's texts (validates the spec)."""
    from grading.grader import assignment_from_texts

    return assignment_from_texts(slug=assignment.slug, title=assignment.title, summary=assignment.summary,
                                 handout=assignment.handout, starter=assignment.starter,
                                 reference=assignment.reference, harness=assignment.harness,
                                 spec=assignment.spec, files=assignment.files)


ASSIGNMENT_EDITABLE = ("title", "summary", "handout", "starter", "reference", "harness", "spec", "files",
                       "deadline", "published")


def assignment_update(*, assignment: Assignment, **fields: Any) -> Assignment:
    """Instructors' edits. A new spec (or files) is validated by the grader before it is kept;
    submissions already graded keep their results until regraded."""
    unknown = set(fields) - set(ASSIGNMENT_EDITABLE)
    if unknown:
        raise ApplicationError(f"not an editable field: {', '.join(sorted(unknown))}")
    for key, value in fields.items():
        setattr(assignment, key, value)
    if {"spec", "files", "title"} & set(fields):
        from grading.grader.spec import SpecError

        try:
            assignment_grader_object(assignment)
        except SpecError as exc:
            raise ValidationError({"spec": [str(exc)]}) from None
    assignment.save()
    return assignment


# ---- submissions --------------------------------------------------------------------------

def _rate_limit_check(*, assignment: Assignment, student: User, now: datetime) -> None:
    interval = timedelta(seconds=settings.SPLAYLAB_SUBMISSION_INTERVAL)
    per_day = settings.SPLAYLAB_SUBMISSIONS_PER_DAY
    recent = list(Submission.objects.filter(assignment=assignment, student=student, created_at__gt=now - DAY)
                  .order_by("created_at").values_list("created_at", flat=True))
    reasons: list[tuple[datetime, str]] = []
    if recent and recent[-1] + interval > now:
        reasons.append((recent[-1] + interval,
                        f"at most one submission every {settings.SPLAYLAB_SUBMISSION_INTERVAL:g} s"))
    if len(recent) >= per_day:
        reasons.append((recent[len(recent) - per_day] + DAY,
                        f"at most {per_day} submissions of an assignment in 24 hours"))
    if not reasons:
        return
    next_at, rule = max(reasons)
    wait = max(1, math.ceil((next_at - now).total_seconds()))
    raise ApplicationError(
        f"{rule}: the next submission is allowed at {next_at:%Y-%m-%d %H:%M:%S} UTC (in {_duration(wait)})",
        status_code=status.HTTP_429_TOO_MANY_REQUESTS, headers={"Retry-After": str(wait)})


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} s"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} min" if minutes < 120 else f"{minutes // 60} h {minutes % 60} min"


def submission_create(*, assignment: Assignment, student: User, source: str) -> Submission:
    """A new immutable submission of `source`, queued for grading. Refused: over the rate
    limit (429, saying when the next one is allowed), and for the course's students, after
    the deadline plus the course's max_late_days (403)."""
    if not source.strip():
        raise ValidationError({"source": ["the submission is empty"]})
    if len(source.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise ValidationError({"source": ["a submission is at most 256 KB"]})
    from .tasks import submission_grade as submission_grade_task  # tasks import services

    course = assignment.course
    with transaction.atomic():
        # One submission at a time per student: the rate limit's count cannot be raced.
        User.objects.select_for_update().filter(id=student.id).first()
        now = timezone.now()
        late_days, penalty = _late(assignment, now)
        is_student = Membership.objects.filter(course=course, user=student,
                                               role=Membership.Role.STUDENT).exists()
        if is_student and late_days > course.max_late_days:
            closed_at = assignment.deadline + course.max_late_days * DAY
            raise ApplicationError(
                f"submissions closed at {closed_at:%Y-%m-%d %H:%M} UTC (deadline "
                f"{assignment.deadline:%Y-%m-%d %H:%M} UTC, plus {course.max_late_days} late days)",
                status_code=status.HTTP_403_FORBIDDEN)
        _rate_limit_check(assignment=assignment, student=student, now=now)
        submission = Submission.objects.create(
            assignment=assignment, student=student, source=source,
            sha256=hashlib.sha256(source.encode("utf-8")).hexdigest(),
            late_days=late_days, penalty_percent=penalty)
        # The push first: on_commit runs in this order, and a worker that takes the task at
        # once publishes `running`, which must not reach the pages before `queued`.
        submission_status_publish(submission, Status.QUEUED)   # the student's other pages
        transaction.on_commit(lambda: submission_grade_task.delay(submission.id))
    return submission


def _grade_with_grader(assignment: Assignment, source: str) -> dict[str, Any]:
    from grading.grader import grade

    return grade(assignment_grader_object(assignment), source).to_dict()


def submission_grade(submission_id: int, *, grade: GradeFn | None = None) -> Submission | None:
    """Grade a queued submission (the Celery task's body). None if it was not queued (another
    worker has it, or it is graded). `grade` replaces the grader (tests only); by default the
    grader (grading.grader) runs the assignment's runs as it is now in the database."""
    now = timezone.now()
    if not Submission.objects.filter(id=submission_id, status=Status.QUEUED).update(
            status=Status.RUNNING, started_at=now):
        return None
    submission = Submission.objects.select_related("assignment__course").get(id=submission_id)
    submission_status_publish(submission, Status.RUNNING)
    mine = Submission.objects.filter(id=submission_id, status=Status.RUNNING, attempt=submission.attempt)
    try:
        report = (grade or _grade_with_grader)(submission.assignment, submission.source)
        score = float(report["score"])
    except Exception as exc:  # noqa: BLE001 - whatever failed, the submission must leave `running`
        log.exception("grading submission %s failed", submission_id)
        message = _error_message(exc)
        if mine.update(status=Status.ERROR, error=message, graded_at=timezone.now()):
            submission_status_publish(submission, Status.ERROR)
    else:
        if mine.update(status=Status.GRADED, score=score, report=report, error="", graded_at=timezone.now(),
                       final_score=final_score_for(score=score, penalty_percent=submission.penalty_percent)):
            grade_changed(assignment_id=submission.assignment_id, student_id=submission.student_id)
            submission_status_publish(submission, Status.GRADED)
    submission.refresh_from_db()
    return submission


def _error_message(exc: BaseException) -> str:
    from celery.exceptions import SoftTimeLimitExceeded

    if isinstance(exc, SoftTimeLimitExceeded):
        return f"grading took longer than {settings.SPLAYLAB_GRADING_TIME_LIMIT} s and was stopped"
    return f"{type(exc).__name__}: {exc}"


def _history_entry(submission: Submission) -> dict[str, Any]:
    return {"attempt": submission.attempt, "status": submission.status, "score": submission.score,
            "late_days": submission.late_days, "penalty_percent": submission.penalty_percent,
            "final_score": submission.final_score, "report": submission.report, "error": submission.error,
            "graded_at": submission.graded_at.isoformat() if submission.graded_at else None}


def submission_regrade(*, submission_id: int) -> bool:
    """Grade the same source again under the assignment's current spec, deadline and late
    policy. The current result goes to `history`; a running grading is superseded (its result
    will be dropped). False if the submission is still queued (its grading is yet to come)."""
    from .tasks import submission_grade as submission_grade_task

    with transaction.atomic():
        submission = (Submission.objects.select_for_update().select_related("assignment__course")
                      .get(id=submission_id))
        if submission.status == Status.QUEUED:
            return False
        late_days, penalty = _late(submission.assignment, submission.created_at)
        Submission.objects.filter(id=submission.id).update(
            status=Status.QUEUED, attempt=F("attempt") + 1,
            history=[*submission.history, _history_entry(submission)],
            score=None, final_score=None, report={}, error="", started_at=None, graded_at=None,
            late_days=late_days, penalty_percent=penalty)
        submission_status_publish(submission, Status.QUEUED)   # before the task: see above
        transaction.on_commit(lambda: submission_grade_task.delay(submission.id))
    return True


def assignment_regrade(*, assignment: Assignment) -> int:
    """Regrade every submission of the assignment; the number queued again."""
    ids = list(assignment.submissions.order_by("id").values_list("id", flat=True))
    return sum(submission_regrade(submission_id=i) for i in ids)


# ---- gradebook ----------------------------------------------------------------------------

def grade_override_set(*, assignment: Assignment, student: User, by: User, score: float | None,
                       comment: str) -> GradeOverride:
    """Set (replace) the override of one student's grade; score None keeps the submissions'
    score and only records the comment."""
    if not Membership.objects.filter(course_id=assignment.course_id, user=student,
                                     role=Membership.Role.STUDENT).exists():
        raise ApplicationError("not a student of this course", status_code=status.HTTP_404_NOT_FOUND)
    override, _ = GradeOverride.objects.update_or_create(
        assignment=assignment, student=student, defaults={"score": score, "comment": comment, "by": by})
    grade_changed(assignment_id=assignment.id, student_id=student.id)
    return override


def grade_override_delete(*, assignment: Assignment, student: User) -> None:
    if GradeOverride.objects.filter(assignment=assignment, student=student).delete()[0]:
        grade_changed(assignment_id=assignment.id, student_id=student.id)
