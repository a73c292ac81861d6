from celery import shared_task

from .services import daemons_mark_unreachable, daemons_mark_unseen


@shared_task(name="daemons.tasks.daemons_sweep")
def daemons_sweep() -> dict[str, list[int]]:
    """Every second (beat): silent daemons become unreachable, then unseen."""
    return {"unreachable": daemons_mark_unreachable(), "unseen": daemons_mark_unseen()}


@shared_task(name="daemons.tasks.reachability_probe")
def reachability_probe_task(involving: list[int] | None = None, among: list[int] | None = None) -> int:
    """Daemons probe each other (daemons.reachability): after a hello, or asked from the dashboard."""
    from .reachability import reachability_probe

    return reachability_probe(involving=involving, among=among)
