from celery import shared_task

from .services import daemons_mark_unseen as daemons_mark_unseen_service


@shared_task(name="daemons.tasks.daemons_mark_unseen")
def daemons_mark_unseen() -> list[int]:
    return daemons_mark_unseen_service()
