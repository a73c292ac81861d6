from celery import shared_task

from .services import daemons_mark_unreachable, daemons_mark_unseen


@shared_task(name="daemons.tasks.daemons_sweep")
def daemons_sweep() -> dict[str, list[int]]:
    """Every second (beat): silent daemons become unreachable, then unseen."""
    return {"unreachable": daemons_mark_unreachable(), "unseen": daemons_mark_unseen()}


@shared_task(name="daemons.tasks.reachability_probe")
def reachability_probe_task(among: list[int] | None = None, hellos: bool = False) -> int:
    """Daemons probe each other (daemons.reachability): the pairs of the daemons that said hello
    since the last round (`hellos`), or those among `among` (asked from the dashboard)."""
    from .reachability import hellos_take, reachability_probe

    if hellos:
        involving = hellos_take()
        return reachability_probe(involving=involving) if involving else 0
    return reachability_probe(among=among)
