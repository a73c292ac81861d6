"""Writes on jobs and instances. Every state change goes through a conditional update
(the `state` it expects) so concurrent actors (scheduler, daemons, Stop, beat) never
undo each other, and every job state change publishes `job.state`."""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from rest_framework.exceptions import ValidationError

from accounts.models import User
from lib.descriptor import DescriptorError, descriptor_parse
from lib.network import NetModelError, network_options_clean
from lib.errors import ApplicationError
from logs.publisher import job_state_publish

from .models import Job, JobInstance

MAX_NODES = 1000
MAX_DURATION = 3600
MAX_CODE_BYTES = 256 * 1024
DEFAULT_DURATION = 30

State = Job.State
IState = JobInstance.State


def job_create(*, owner: User, code: str, nodes: int | None = None, duration: int | None = None,
               filename: str = "app.lua", name: str = "", network: dict | None = None) -> Job:
    """The code's resource descriptor (lib.descriptor) fills in what the request leaves out:
    nb_splayds → nodes, max_time → duration (and bounds a given duration), network_* → the
    emulated network (request options win key by key). A bad descriptor
    is a 400 on `code`, each message starting with FILE:LINE: like a syntax error."""
    filename = filename or "app.lua"
    try:
        descriptor = descriptor_parse(code, filename)
    except DescriptorError as exc:
        raise ValidationError({"code": exc.errors}) from None
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
    if not 1 <= nodes <= MAX_NODES:
        raise ApplicationError(f"nodes must be between 1 and {MAX_NODES}")
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
    from .tasks import job_schedule  # tasks import services

    with transaction.atomic():
        job = Job.objects.create(owner=owner, code=code, nodes=nodes, duration=duration,
                                 filename=filename, name=name or filename,
                                 descriptor=descriptor.values if descriptor is not None else {},
                                 network=network)
        job_state_publish(job.id)
        transaction.on_commit(lambda: job_schedule.delay(job.id))
    return job


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


_TRANSITIONS_FROM: dict[str, list[str]] = {
    IState.RUNNING: [IState.RESERVED],
    IState.ENDED: [IState.RESERVED, IState.RUNNING],
    IState.FAILED: [IState.RESERVED, IState.RUNNING],
    IState.KILLED: [IState.RESERVED, IState.RUNNING],
    IState.LOST: [IState.RESERVED, IState.RUNNING],
}


def instance_update(*, daemon_id: int, job_id: int, node: int, state: str,
                    exit_code: int | None = None, reason: str = "") -> bool:
    """A daemon reports an instance. Terminal instances never change again; the last one
    to end finishes the job."""
    allowed_from = _TRANSITIONS_FROM.get(state)
    if allowed_from is None:
        return False
    fields: dict[str, Any] = {"state": state}
    if state in JobInstance.TERMINAL:
        fields.update(exit_code=exit_code, exit_reason=reason or state.lower())
    changed = JobInstance.objects.filter(
        job_id=job_id, node=node, daemon_id=daemon_id, state__in=allowed_from).update(**fields)
    if changed and state in JobInstance.TERMINAL:
        job_finish_if_done(job_id)
    return bool(changed)


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


def job_finish_if_done(job_id: int) -> bool:
    """RUNNING job whose kept instances are all terminal → ENDED or FAILED."""
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(id=job_id, state=State.RUNNING).first()
        if job is None:
            return False
        instances = list(job.instances.filter(node__isnull=False))
        if not instances or any(i.state not in JobInstance.TERMINAL for i in instances):
            return False
        outcome = job_outcome(instances, job.filename)
        return job_state_set(job_id, expect=[State.RUNNING], to=outcome.state,
                             reason=outcome.reason, error_line=outcome.error_line)
