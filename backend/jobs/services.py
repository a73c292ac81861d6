"""Writes on jobs and instances. Every state change goes through a conditional update
(the `state` it expects) so concurrent actors (scheduler, daemons, Stop, beat) never
undo each other, and every job state change publishes `job.state`."""
from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from rest_framework.exceptions import ValidationError

from accounts.models import User
from lib.descriptor import DescriptorError, descriptor_parse, trace_clean
from lib.network import NetModelError, network_options_clean
from lib.errors import ApplicationError
from logs.publisher import job_state_publish
from scenarios.models import Scenario

from .churn import plan_load as churn_plan_load, spares_for as churn_spares_for
from .churn_events import churn_record

from .models import Job, JobInstance

MAX_NODES = 1000
MAX_SIM_NODES = 10_000   # simulated: one process, no daemon slot per node
SIM_DEFAULT_SEED = 1     # a simulated run without a seed is still reproducible
MAX_DURATION = 3600
MAX_CODE_BYTES = 256 * 1024
DEFAULT_DURATION = 30

State = Job.State
IState = JobInstance.State


def job_create(*, owner: User, code: str, nodes: int | None = None, duration: int | None = None,
               filename: str = "app.lua", name: str = "", network: dict | None = None,
               churn: str | None = None, scenario: Scenario | None = None,
               keep_population: bool = False, mode: str = Job.Mode.LIVE, seed: int | None = None,
               trace: Any = None, harness: str = "", harness_of: str = "") -> Job:
    """The code's resource descriptor (lib.descriptor) fills in what the request leaves out:
    nb_splayds → nodes, max_time → duration (and bounds a given duration), network_* → the
    emulated network (request options win key by key). A bad descriptor
    is a 400 on `code`, each message starting with FILE:LINE: like a syntax error.
    A churn scenario (`churn` text, or a library `scenario`) decides the nodes (its positions,
    plus spares with keep_population) and, by its `stop`, the default duration; keep_population
    without a scenario is the scenario "at 0s join N" (docs/churn.md, "On the service").
    `trace` (true, false or {"max_events": N}; None: the descriptor's `trace`, else off) turns
    the runtime's message trace on (docs/trace.md)."""
    filename = filename or "app.lua"
    try:
        descriptor = descriptor_parse(code, filename)
    except DescriptorError as exc:
        raise ValidationError({"code": exc.errors}) from None
    if churn and scenario is not None:
        raise ValidationError({"scenario": ["give a scenario from the library or a churn text, not both"]})
    churn_name = ""
    if scenario is not None:
        churn, churn_name = scenario.text, scenario.name
    simulated = mode == Job.Mode.SIM
    if harness and not simulated:
        raise ValidationError({"assignment": ["an assignment's harness runs in simulated jobs only: choose "
                                              "Simulate (mode 'sim')"]})
    max_nodes = MAX_SIM_NODES if simulated else MAX_NODES
    if simulated and keep_population:
        raise ValidationError({"keep_population": ["keep population (spares replacing dead nodes) is not "
                                                   "simulated: run live, or write the replacements in the scenario"]})
    plan = churn_plan_load(churn) if churn else None
    if plan is not None:
        if nodes is not None and nodes != plan.nodes:
            raise ValidationError({"nodes": [f"the scenario uses {plan.nodes} nodes: leave nodes out, "
                                             f"or give {plan.nodes}"]})
        if plan.nodes > max_nodes:
            raise ValidationError({"churn": [
                f"the scenario uses {plan.nodes:,} distinct nodes and a job holds at most {max_nodes} "
                f"(one slot each): 'set replacement ratio to 0%' makes joins revive nodes that left"]})
        nodes = plan.nodes
        if duration is None and plan.end is not None:
            duration = max(1, math.ceil(plan.end))
    if nodes is None:
        if descriptor is None or descriptor.nb_splayds is None:
            raise ValidationError({"nodes": ["give the number of nodes, or nb_splayds in the "
                                             "code's resource descriptor"]})
        nodes = descriptor.nb_splayds
    max_time = descriptor.max_time if descriptor is not None else None
    if duration is None:
        duration = max_time or DEFAULT_DURATION
    elif max_time is not None:
        duration = min(duration, max_time)
    if not 1 <= nodes <= max_nodes:
        raise ValidationError({"nodes": [f"nodes must be between 1 and {max_nodes:,}"
                                         + ("" if simulated else f" (up to {MAX_SIM_NODES:,} simulated)")]})
    if not 1 <= duration <= MAX_DURATION:
        raise ApplicationError(f"duration must be between 1 and {MAX_DURATION} seconds")
    if len(code.encode("utf-8")) > MAX_CODE_BYTES:
        raise ApplicationError("code is larger than 256 KB")
    if descriptor is not None and descriptor.network_options():
        # The code's network is the default; what the request gives replaces it key by key.
        network = {**descriptor.network_options(), **(network or {})}
    try:
        network = network_options_clean(network)
    except NetModelError as exc:
        raise ValidationError({"network": [str(exc)]}) from None
    try:
        trace = trace_clean(trace) if trace is not None else (descriptor.trace if descriptor is not None else None)
    except ValueError as exc:
        raise ValidationError({"trace": [str(exc)]}) from None
    if not simulated:
        _quota_check(owner=owner, nodes=nodes, duration=duration)
    positions, spares = None, 0
    if keep_population and plan is None:
        churn = f"# keep population: every node from the start, replaced when it dies\nat 0s join {nodes}\n"
        plan = churn_plan_load(churn)
    if plan is not None:
        positions = nodes
        spares = churn_spares_for(plan) if keep_population else 0
        if positions + spares > MAX_NODES:
            spares = max(0, MAX_NODES - positions)
        nodes = positions + spares
    from .tasks import job_schedule, simulation_run  # tasks import services

    with transaction.atomic():
        job = Job.objects.create(owner=owner, code=code, nodes=nodes, duration=duration,
                                 filename=filename, name=name or filename,
                                 descriptor=descriptor.values if descriptor is not None else {},
                                 network=network, churn=churn or "", churn_name=churn_name,
                                 keep_population=keep_population, churn_positions=positions,
                                 churn_spares=spares, mode=mode, trace=trace, harness=harness,
                                 harness_of=harness_of,
                                 seed=(SIM_DEFAULT_SEED if seed is None else seed) if simulated else seed)
        # Not published: no page can be watching a job before it exists (a page that opens
        # its websocket gets the job's state on connect, logs.consumers).
        transaction.on_commit(lambda: (simulation_run if simulated else job_schedule).delay(job.id))
    return job


def _quota_check(*, owner: User, nodes: int, duration: int) -> None:
    """A student's course quotas on live jobs (docs/decisions.md, "Grading"): nodes per job, jobs
    at once, minutes of jobs in the last 24 hours. Simulations are bounded by their queue."""
    from courses.selectors import student_quota

    quota = student_quota(user=owner)
    if quota is None:
        return
    if nodes > quota.max_nodes_per_job:
        raise ValidationError({"nodes": [f"your course ({quota.courses}) allows at most "
                                         f"{quota.max_nodes_per_job:,} nodes per job"]})
    live = Job.objects.filter(owner=owner, mode=Job.Mode.LIVE)
    active = live.filter(state__in=list(Job.ACTIVE)).count()
    if active >= quota.max_concurrent_jobs:
        raise ApplicationError(f"you have {active} jobs queued or running, the most your course "
                               f"({quota.courses}) allows at once: stop one or wait for it to end",
                               status_code=429)
    now = timezone.now()
    used = 0.0
    for job in live.filter(created_at__gte=now - timedelta(days=1)).only("duration", "started_at", "ended_at"):
        if job.started_at and job.ended_at:
            used += (job.ended_at - job.started_at).total_seconds()
        elif job.started_at:
            used += min(job.duration, (now - job.started_at).total_seconds())
        else:
            used += job.duration   # queued: it will take its duration
    if used + duration > quota.minutes_per_day * 60:
        left = max(0, quota.minutes_per_day * 60 - used)
        raise ApplicationError(f"this job's {duration} s would pass your course's ({quota.courses}) "
                               f"{quota.minutes_per_day} minutes of jobs per day: {used / 60:.1f} used in "
                               f"the last 24 hours, {left:.0f} s left", status_code=429)


def job_state_set(job_id: int, *, expect: Iterable[str], to: str, reason: str | None = None,
                  **fields: Any) -> bool:
    """Move the job to `to` if it is in one of `expect`; True if this call did it."""
    now = timezone.now()
    if to in Job.TERMINAL:
        fields.setdefault("ended_at", now)
    if to == State.RUNNING:
        fields.setdefault("started_at", now)
    if reason is not None:
        fields["reason"] = reason
    with transaction.atomic():
        changed = Job.objects.filter(id=job_id, state__in=list(expect)).update(state=to, **fields)
        if changed:
            job_state_publish(job_id)
    return bool(changed)


def job_stop(*, job_id: int, user: User) -> Job:
    """Stop pressed: the job is KILLED at once; the job_stop task tells the daemons."""
    from .tasks import job_stop as job_stop_task

    with transaction.atomic():
        job = Job.objects.select_for_update().get(id=job_id)
        if job.state in Job.TERMINAL:
            raise ApplicationError(f"job is already {job.state}", status_code=409)
        now = timezone.now()
        Job.objects.filter(id=job.id).update(
            state=State.KILLED, reason=f"stopped by {user.username}", ended_at=now,
            stop_requested_at=job.stop_requested_at or now)
        job_state_publish(job.id)
        transaction.on_commit(lambda: job_stop_task.delay(job.id))
    job.refresh_from_db()
    return job


# A node the controller judged LOST (its daemon unseen too long, or silent about it at hello)
# may still have ended on its own meanwhile: the end its daemon's journal reports later is the
# truth, and replaces the verdict (job_outcome_reconsider).
_TRANSITIONS_FROM: dict[str, list[str]] = {
    IState.RUNNING: [IState.RESERVED, IState.LEFT],
    IState.LEFT: [IState.RUNNING],
    IState.ENDED: [IState.RESERVED, IState.RUNNING, IState.LEFT, IState.LOST],
    IState.FAILED: [IState.RESERVED, IState.RUNNING, IState.LEFT, IState.LOST],
    IState.KILLED: [IState.RESERVED, IState.RUNNING, IState.LEFT, IState.LOST],
    IState.LOST: [IState.RESERVED, IState.RUNNING, IState.LEFT],
}


def instance_update(*, daemon_id: int, job_id: int, node: int, state: str,
                    exit_code: int | None = None, reason: str = "",
                    churn: dict[str, Any] | None = None) -> bool:
    """A daemon reports an instance. Terminal instances never change again, but for a LOST
    one whose end its daemon reports after all (its journal, replayed late); the last one
    to end finishes the job. `churn` (a churn job's join or leave: {event, t, planned,
    graceful}) is recorded as a ChurnEvent; a churn job's node that ends on its own while up
    is recorded as a `fail` (and replaced under keep_population)."""
    allowed_from = _TRANSITIONS_FROM.get(state)
    if allowed_from is None:
        return False
    fields: dict[str, Any] = {"state": state}
    if state in JobInstance.TERMINAL or state == IState.LEFT:
        fields.update(exit_code=exit_code, exit_reason=reason or state.lower())
    elif state == IState.RUNNING:
        fields.update(exit_code=None, exit_reason="")  # a node joining again
    with transaction.atomic():
        inst = (JobInstance.objects.select_for_update().select_related("job")
                .filter(job_id=job_id, node=node, daemon_id=daemon_id, state__in=allowed_from).first())
        if inst is None:
            return False
        was = inst.state
        JobInstance.objects.filter(id=inst.id).update(**fields)
        if inst.job.has_churn:
            churn_record(inst, was=was, state=state, reason=reason, churn=churn)
    if was == IState.LOST:
        job_outcome_reconsider(job_id)
    elif state in JobInstance.TERMINAL:
        job_finish_if_done(job_id)
    return True


def instances_terminate(*, job_id: int, state: str, reason: str,
                        daemon_ids: Iterable[int] | None = None) -> list[int]:
    """End the job's active instances (on some daemons); drop unkept reservations.
    Returns the affected daemon ids."""
    qs = JobInstance.objects.filter(job_id=job_id, state__in=list(JobInstance.ACTIVE))
    if daemon_ids is not None:
        qs = qs.filter(daemon_id__in=list(daemon_ids))
    daemons = sorted({d for d in qs.values_list("daemon_id", flat=True) if d is not None})
    qs.filter(node__isnull=True).delete()
    qs.filter(node__isnull=False).update(state=state, exit_reason=reason)
    return daemons


@dataclass(frozen=True)
class JobOutcome:
    state: str
    reason: str
    error_line: int | None


def _error_line(reason: str, filename: str) -> int | None:
    match = re.match(rf"^{re.escape(filename)}:(\d+):", reason)
    return int(match.group(1)) if match else None


def job_outcome(instances: list[JobInstance], filename: str) -> JobOutcome:
    """Pure: the end state of a job whose kept instances are all terminal."""
    total = len(instances)
    bad = sorted((i for i in instances if i.state in JobInstance.BAD), key=lambda i: i.node or 0)
    if not bad:
        return JobOutcome(State.ENDED, f"all {total} instances ended", None)
    first = bad[0]
    first_text = f"node {first.node}: {first.exit_reason or first.state.lower()}"
    line = _error_line(first.exit_reason, filename)
    # Say what happened to them: a lost daemon is not a bug in the student's code.
    kinds = {i.state for i in bad}
    verb = "lost" if kinds == {IState.LOST} else "failed or lost" if IState.LOST in kinds else "failed"
    if len(bad) == total:
        what = f"instance {verb}" if total == 1 else f"all {total} instances {verb}"
        return JobOutcome(State.FAILED, f"{what}; {first_text}", line)
    return JobOutcome(State.ENDED, f"ended; {len(bad)} of {total} instances {verb}: {first_text}",
                      line)


def job_outcome_reconsider(job_id: int) -> bool:
    """An instance judged LOST reported its own end: a job that ended on that verdict (ENDED
    or FAILED; a stop stays KILLED) gets the outcome its instances now give; a running one
    finishes as usual. True if the job changed."""
    if job_finish_if_done(job_id):
        return True
    return _job_end_set(job_id, (State.ENDED, State.FAILED))


def job_finish_if_done(job_id: int) -> bool:
    """RUNNING job whose kept instances are all terminal → ENDED or FAILED."""
    return _job_end_set(job_id, (State.RUNNING,))


def _job_end_set(job_id: int, states: tuple[str, ...]) -> bool:
    """The job (in one of `states`) whose kept instances are all terminal gets the outcome
    they give (job_outcome); an ended job keeps its end time. True if the job changed."""
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(id=job_id, state__in=list(states)).first()
        if job is None:
            return False
        instances = list(job.instances.filter(node__isnull=False))
        if not instances or any(i.state not in JobInstance.TERMINAL for i in instances):
            return False
        outcome = job_outcome(instances, job.filename)
        if (outcome.state, outcome.reason) == (job.state, job.reason):
            return False
        kept = {"ended_at": job.ended_at} if job.state in Job.TERMINAL else {}
        return job_state_set(job_id, expect=[job.state], to=outcome.state, reason=outcome.reason,
                             error_line=outcome.error_line, **kept)
