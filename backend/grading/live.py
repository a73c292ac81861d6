"""A student's submissions, pushed to their open pages: each change of a submission's status
(queued, running, graded, error) goes to the group `submissions-<student id>` on the "live"
channel layer (logs.publisher.LIVE_VIEW_LAYER: one Redis PUBLISH, whatever the number of pages),
where grading.consumers.SubmissionsConsumer relays it to that student's browsers. The page then
reads the submission through the API (its permission checks, its hidden checks withheld): the
message says only which submission changed and to what status, so a page needs no poll every
2 s while a class waits for its grades (docs/grading.md, "Status pushes"). Best effort: the
database stays the truth, and the pages still poll, slowly, in case a push is lost."""
from __future__ import annotations

import logging
from typing import TypedDict

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from logs.publisher import LIVE_VIEW_LAYER

from .models import Submission

logger = logging.getLogger(__name__)


class SubmissionStatus(TypedDict):
    id: int
    course: int
    assignment: str
    status: str


class SubmissionStatusMessage(TypedDict):
    type: str  # "submission.status"
    submission: SubmissionStatus


def submissions_group(student_id: int) -> str:
    return f"submissions-{student_id}"


def submission_status_publish(submission: Submission, status: str) -> None:
    """After the surrounding transaction commits (at once outside one): `status` is the
    submission's new one (the caller's update may not be in `submission` yet)."""
    message: SubmissionStatusMessage = {"type": "submission.status", "submission": {
        "id": submission.id, "course": submission.assignment.course_id,
        "assignment": submission.assignment.slug, "status": status}}
    group = submissions_group(submission.student_id)

    def send() -> None:
        try:
            async_to_sync(get_channel_layer(LIVE_VIEW_LAYER).group_send)(group, message)
        except Exception:  # noqa: BLE001 - a lost push costs a slower page, never the grading
            logger.exception("publishing the status of submission %s failed", submission.id)

    transaction.on_commit(send)
