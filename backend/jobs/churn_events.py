"""A churn job's node events (join, leave, fail): stored as ChurnEvent rows and published to the
job page; a node that goes down on its own under keep_population is replaced (jobs.tasks)."""
from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from .models import ChurnEvent, Job, JobInstance

IState = JobInstance.State
State = Job.State


# The daemons' reason for a node still up when its churn scenario ends (docs/architecture.md):
# the job's own end, not the node going down on its own. (The job's other ends, a stop, a
# freed slot or a daemon shutting down, are KILLED.)
SCENARIO_ENDED = "the scenario ended"


def churn_record(inst: JobInstance, *, was: str, state: str, reason: str,
                  churn: dict[str, Any] | None) -> None:
    job = inst.job
    if isinstance(churn, dict) and churn.get("event") in ("join", "leave"):
        event = str(churn["event"])
        t = _float(churn.get("t"))
        planned = _float(churn.get("planned")) if churn.get("planned") is not None else None
        graceful = bool(churn.get("graceful"))
        who = f"node {inst.node}" + (f" (playing node {inst.plays})" if inst.plays else "")
        text = churn_text(who, event, graceful)
        if event == "join" and inst.plays and planned is None:
            text += f" in place of node {inst.plays}"
        if planned is not None and t is not None:
            text += f", planned at {planned:g} s, {1000 * (t - planned):+.0f} ms"
        churn_event_add(job, node=inst.node, plays=inst.plays, event=event, t=t, planned=planned,
                        graceful=graceful, text=text)
        return
    # A crash of a node that joins again later is reported LEFT (it keeps its slot).
    if was == IState.RUNNING and (state in JobInstance.TERMINAL or state == IState.LEFT) \
            and state != IState.KILLED and reason != SCENARIO_ENDED:
        churn_node_down(job, inst, reason or state.lower())


def churn_text(who: str, event: str, graceful: bool) -> str:
    """A join or leave in the churn view's words: "node 3 joined", "node 3 left gracefully"."""
    if event == "join":
        return f"{who} joined"
    return f"{who} left" + (" gracefully" if graceful else " (failure)")


def _float(v: Any) -> float | None:
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def churn_event_add(job: Job, *, node: int, event: str, t: float | None, plays: int | None = None,
                    planned: float | None = None, graceful: bool = False, text: str = "") -> None:
    """Store one up/down transition of a churn job's node and publish it to the job page."""
    from logs.publisher import churn_events_publish

    from .serializers import ChurnEventOutputSerializer

    if t is None:  # the controller's clock, for events the daemons do not time
        t = timezone.now().timestamp() - job.churn_epoch if job.churn_epoch is not None else 0.0
    ev = ChurnEvent.objects.create(job=job, node=node, plays=plays, event=event, t=round(t, 3),
                                   planned=planned, graceful=graceful, text=text)
    churn_events_publish(job.id, [dict(ChurnEventOutputSerializer(ev).data)])


def churn_node_down(job: Job, inst: JobInstance, reason: str) -> None:
    """A churn job's node went down on its own (crash, limit, lost daemon): a `fail` event,
    and under keep_population a spare takes its place (task jobs.tasks.churn_replace)."""
    position = inst.plays or inst.node
    churn_event_add(job, node=inst.node, plays=inst.plays, event=ChurnEvent.Event.FAIL, t=None,
                    text=f"node {inst.node} went down: {reason}")
    if job.keep_population and job.state == State.RUNNING:
        from .tasks import churn_replace

        transaction.on_commit(lambda: churn_replace.delay(job.id, position, inst.node))
