"""AGS grade passback: one student's grade for one assignment, as the gradebook holds it, sent
to the line item of every bound LMS course that can take scores.

What is sent is what the student may see (grading.selectors): an override's score as it is; a
graded submission's final score only once its hidden checks are released (the deadline has
passed), held until then. The score's timestamp is when the grade changed in SplayLab, so an
LMS that keeps the latest timestamp keeps the latest grade whatever order the sends arrive in."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import requests
from django.utils import timezone
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem as LibLineItem
from pylti1p3.service_connector import ServiceConnector

from accounts.models import User
from grading.models import Assignment
from grading.selectors import GradebookCell, gradebook_get, hidden_revealed

from .deep_linking import line_item_tag
from .models import Context, GradeSync, LineItem, LmsUser
from .tool_conf import registration_for

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"


@dataclass(frozen=True)
class Outcome:
    """sent; held (until `until`: hidden checks not released); retry (the LMS or the network
    failed: try again later); failed (trying again would not help: the reason says what to fix)."""
    kind: str
    reason: str = ""
    until: datetime | None = None


class Transient(Exception):
    pass


def contexts_for(assignment: Assignment) -> list[Context]:
    """The bound LMS courses of the assignment's course that announced a line-items service."""
    return list(Context.objects.select_related("platform").filter(course_id=assignment.course_id)
                .exclude(lineitems_url=""))


def _cell(assignment: Assignment, student: User) -> GradebookCell | None:
    book = gradebook_get(course=assignment.course, student_id=student.id)
    if not book.rows:
        return None
    return next((c for c in book.rows[0][1] if c.assignment.id == assignment.id), None)


def _comment(cell: GradebookCell) -> str:
    if cell.source == "override":
        return cell.override.comment or "score set by the course staff"
    sub = cell.submission
    checks = (sub.report or {}).get("checks", [])
    passed = sum(1 for c in checks if c.get("passed"))
    text = f"SplayLab: {passed} of {len(checks)} checks passed (submission {sub.id}, grading {sub.attempt})"
    if sub.penalty_percent:
        text += f"; late by {sub.late_days} day(s): -{sub.penalty_percent:g}%"
    if cell.override is not None and cell.override.comment:
        text += f". Staff: {cell.override.comment}"
    return text


def _grade(cell: GradebookCell | None, sub: str, changed_at: datetime) -> Grade:
    grade = Grade().set_user_id(sub).set_timestamp(changed_at.isoformat()).set_score_maximum(100)
    if cell is None or cell.score is None:
        # No grade (an override removed, nothing graded): the LMS clears its cell.
        return grade.set_activity_progress("Initialized").set_grading_progress("NotReady")
    return (grade.set_score_given(round(float(cell.score), 2)).set_comment(_comment(cell))
            .set_activity_progress("Completed").set_grading_progress("FullyGraded"))


def _held_until(cell: GradebookCell | None) -> tuple[bool, datetime | None]:
    """A submission's score counts hidden checks the student may not see yet: not sent."""
    if cell is None or cell.source != "submission" or hidden_revealed(cell.assignment):
        return False, None
    hidden = any(c.get("hidden") for c in (cell.submission.report or {}).get("checks", []))
    return hidden, cell.assignment.deadline


class TimedSession(requests.Session):
    """pylti1p3 calls the LMS with no timeout: a stalled LMS would hold a worker for ever."""

    def request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        kwargs.setdefault("timeout", 20)
        return super().request(*args, **kwargs)


def connector_for(context: Context) -> ServiceConnector:
    return ServiceConnector(registration_for(context.platform), requests_session=TimedSession())


def _service(context: Context) -> AssignmentsGradesService:
    connector = connector_for(context)
    return AssignmentsGradesService(connector, {"scope": context.ags_scopes, "lineitems": context.lineitems_url})


def _line_item_url(context: Context, assignment: Assignment, ags: AssignmentsGradesService) -> str:
    """Deep linking's line item (kept at launch), else found or made by our tag."""
    row = LineItem.objects.filter(context=context, assignment=assignment).first()
    if row is not None:
        return row.url
    wanted = (LibLineItem().set_tag(line_item_tag(assignment)).set_label(assignment.title)
              .set_resource_id(assignment.slug).set_score_maximum(100))
    if LINEITEM_SCOPE not in context.ags_scopes:
        raise LtiException("the LMS gave no line item for this assignment and no right to make one "
                           "(add the assignment through deep linking)")
    found = ags.find_or_create_lineitem(wanted)
    LineItem.objects.update_or_create(context=context, assignment=assignment, defaults={"url": found.get_id()})
    return found.get_id()


def _send_one(context: Context, assignment: Assignment, student: User, cell: GradebookCell | None,
              changed_at: datetime) -> None:
    if SCORE_SCOPE not in context.ags_scopes:
        raise LtiException("the LMS did not grant the score scope: enable grade passback for the tool")
    link = LmsUser.objects.filter(platform=context.platform, user=student).first()
    if link is None:
        raise LtiException(f"{student.username} has no account in the LMS course {context.title or context.context_id!r} "
                           "(never launched, not in its roster)")
    ags = _service(context)
    try:
        url = _line_item_url(context, assignment, ags)
        ags.put_grade(_grade(cell, link.sub, changed_at), LibLineItem().set_id(url))
    except LtiServiceException as exc:
        status = exc.response.status_code if getattr(exc, "response", None) is not None else 0
        text = f"the LMS answered {status}: {str(exc)[:300]}"
        if status >= 500 or status in (408, 429) or status == 0:
            raise Transient(text) from None
        raise LtiException(text) from None
    except requests.RequestException as exc:
        raise Transient(f"the LMS could not be reached: {exc}") from None


def send(*, assignment_id: int, student_id: int) -> Outcome:
    """Send the current grade to every bound LMS course; the row's state says how it went."""
    assignment = Assignment.objects.select_related("course").get(id=assignment_id)
    student = User.objects.get(id=student_id)
    sync = GradeSync.objects.filter(assignment=assignment, student=student).first()
    if sync is None:
        return Outcome("failed", "no pending change")
    cell = _cell(assignment, student)
    held, until = _held_until(cell)
    fields = {"score": None if cell is None else cell.score,
              "submission": cell.submission if cell is not None and cell.source == "submission" else None}
    if held:
        reason = (f"held until the deadline ({until:%Y-%m-%d %H:%M} UTC): the score counts hidden checks"
                  if until else "held: the score counts hidden checks and the assignment has no deadline")
        GradeSync.objects.filter(id=sync.id).update(state=GradeSync.State.PENDING, reason=reason, held=True, **fields)
        return Outcome("held", reason, until)
    fields["held"] = False
    try:
        for context in contexts_for(assignment):
            _send_one(context, assignment, student, cell, sync.changed_at)
    except Transient as exc:
        GradeSync.objects.filter(id=sync.id).update(tries=sync.tries + 1, reason=str(exc), **fields)
        return Outcome("retry", str(exc))
    except LtiException as exc:
        GradeSync.objects.filter(id=sync.id).update(state=GradeSync.State.FAILED, tries=sync.tries + 1,
                                                    reason=str(exc), **fields)
        return Outcome("failed", str(exc))
    GradeSync.objects.filter(id=sync.id).update(state=GradeSync.State.SENT, reason="", tries=sync.tries + 1,
                                                sent_at=timezone.now(), **fields)
    return Outcome("sent")


def released() -> list[tuple[int, int]]:
    """Held grades whose assignment's deadline has now passed (whatever it was when they were
    held: a moved deadline counts as it is now)."""
    return list(GradeSync.objects.filter(state=GradeSync.State.PENDING, held=True,
                                         assignment__deadline__lte=timezone.now())
                .values_list("assignment_id", "student_id"))


def give_up(*, assignment_id: int, student_id: int, reason: str) -> None:
    GradeSync.objects.filter(assignment_id=assignment_id, student_id=student_id).update(
        state=GradeSync.State.FAILED, reason=f"gave up after retries: {reason}")
