from celery import shared_task

from .services import daemons_mark_unreachable, daemons_mark_unseen


@shared_task(name="daemons.tasks.daemons_sweep")
def daemons_sweep() -> dict[str, list[int]]:
    """Every second (beat): silent daemons become unreachable, then unseen."""
    return {"unreachable": daemons_mark_unreachable(), "unseen": daemons_mark_unseen()}
