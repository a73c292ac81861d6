"""Celery tasks: take ids, call services (queue settings.SPLAYLAB_GRADING_QUEUE)."""
from celery import shared_task
from django.conf import settings

from . import services


@shared_task(name="grading.tasks.submission_grade", soft_time_limit=settings.SPLAYLAB_GRADING_TIME_LIMIT,
             time_limit=settings.SPLAYLAB_GRADING_TIME_LIMIT + 60)
def submission_grade(submission_id: int) -> None:
    """Grade a queued submission; a second delivery finds it claimed and does nothing."""
    services.submission_grade(submission_id)
