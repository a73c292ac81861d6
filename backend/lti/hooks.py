"""The one call grading makes: a student's grade for an assignment changed (a grading ended, a
regrade ended, an override was set or removed). Cheap when the course has no LMS."""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .models import Context, GradeSync


def grade_changed(*, assignment_id: int, student_id: int) -> None:
    """Mark the grade pending and send it after the commit (Celery, retried with backoff)."""
    if not Context.objects.filter(course__assignments__id=assignment_id).exclude(lineitems_url="").exists():
        return
    GradeSync.objects.update_or_create(
        assignment_id=assignment_id, student_id=student_id,
        defaults={"state": GradeSync.State.PENDING, "reason": "to be sent", "changed_at": timezone.now(),
                  "tries": 0})
    from .tasks import grade_send

    transaction.on_commit(lambda: grade_send.delay(assignment_id, student_id))
