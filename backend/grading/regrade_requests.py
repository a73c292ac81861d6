"""Regrade requests: a student asks, with a message, that staff look at a graded submission
again; an instructor or TA answers (and may queue a regrade). Writes and reads together: the
concern is small and self-contained."""
from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError

from accounts.models import User
from courses.models import Course, Membership
from lib.errors import ApplicationError

from .models import RegradeRequest, Submission
from .services import submission_regrade

MAX_MESSAGE = 4000
Status = Submission.Status


def _text(value: str, field: str) -> str:
    value = value.strip()
    if not value:
        raise ValidationError({field: ["say what should be looked at again"]})
    if len(value) > MAX_MESSAGE:
        raise ValidationError({field: [f"at most {MAX_MESSAGE} characters"]})
    return value


def regrade_request_create(*, submission: Submission, student: User, message: str) -> RegradeRequest:
    """The submission's own student, once it is graded (or failed), one open request at a time."""
    if submission.student_id != student.id or not Membership.objects.filter(
            course_id=submission.assignment.course_id, user=student, role=Membership.Role.STUDENT).exists():
        raise ApplicationError("only the submission's student may ask for its regrade",
                               status_code=status.HTTP_403_FORBIDDEN)
    if submission.status not in (Status.GRADED, Status.ERROR):
        raise ApplicationError("the submission is still being graded: wait for its result")
    already = ApplicationError("this submission already has an open regrade request",
                               status_code=status.HTTP_409_CONFLICT)
    if RegradeRequest.objects.filter(submission=submission, state=RegradeRequest.State.OPEN).exists():
        raise already
    try:
        with transaction.atomic():
            return RegradeRequest.objects.create(submission=submission, student=student,
                                                 message=_text(message, "message"))
    except IntegrityError as exc:  # asked twice at once (a double click): the index kept one
        if "regrade_request_one_open" not in str(exc):
            raise
        raise already from None


def regrade_request_answer(*, request: RegradeRequest, by: User, answer: str, regrade: bool) -> RegradeRequest:
    """Staff's answer; `regrade` queues the submission's grading again (the request says so)."""
    text = _text(answer, "answer")
    with transaction.atomic():
        locked = RegradeRequest.objects.select_for_update().get(id=request.id)
        if locked.state != RegradeRequest.State.OPEN:
            raise ApplicationError("this request was answered already", status_code=status.HTTP_409_CONFLICT)
        queued = submission_regrade(submission_id=locked.submission_id) if regrade else False
        RegradeRequest.objects.filter(id=locked.id).update(
            state=RegradeRequest.State.ANSWERED, answer=text, answered_by=by, answered_at=timezone.now(),
            regraded=queued)
    request.refresh_from_db()
    return request


def course_requests(*, course: Course, state: str | None = None) -> QuerySet[RegradeRequest]:
    qs = (RegradeRequest.objects.filter(submission__assignment__course=course)
          .select_related("student", "answered_by", "submission__assignment"))
    return qs.filter(state=state) if state else qs


_dt = serializers.DateTimeField().to_representation


def request_data(r: RegradeRequest) -> dict[str, Any]:
    return {"id": r.id, "submission": r.submission_id, "assignment": r.submission.assignment.slug,
            "student": r.student.username, "message": r.message, "created_at": _dt(r.created_at),
            "state": r.state, "answer": r.answer, "answered_by": r.answered_by.username if r.answered_by else None,
            "answered_at": _dt(r.answered_at) if r.answered_at else None, "regraded": r.regraded}
