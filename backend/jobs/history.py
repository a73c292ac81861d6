"""A user's runs as a history (issue 22 point 4, docs/editor.md "Run history"): every job keeps
the code it ran and its settings, so it can be named and run again as it was."""
from __future__ import annotations

from rest_framework.exceptions import PermissionDenied, ValidationError

from accounts.models import User

from .models import Job
from .services import job_create


def job_rename(*, job: Job, user: User, name: str) -> Job:
    """Only the job's owner names it (its course's staff may read it, not rename it)."""
    if job.owner_id != user.id:
        raise PermissionDenied("only the job's owner may rename it")
    name = name.strip()
    if not name:
        raise ValidationError({"name": ["a run's name cannot be empty"]})
    job.name = name
    job.save(update_fields=["name"])
    return job


def job_rerun(*, job: Job, user: User) -> Job:
    """A new job of `user` with the code and every setting of `job`: the same nodes (or its
    scenario, which decides them), duration, network, churn and keep-population, mode and seed,
    trace and harness. It passes the same checks as a new job (quotas, limits) at the time of
    the re-run."""
    new = job_create(owner=user, code=job.code, filename=job.filename, name=job.name,
                     nodes=None if job.churn else job.nodes, duration=job.duration,
                     network=dict(job.network or {}), churn=job.churn or None,
                     keep_population=job.keep_population, mode=job.mode, seed=job.seed,
                     trace=dict(job.trace) if isinstance(job.trace, dict) else False,
                     harness=job.harness, harness_of=job.harness_of)
    if job.churn_name:
        Job.objects.filter(id=new.id).update(churn_name=job.churn_name)
        new.churn_name = job.churn_name
    return new
