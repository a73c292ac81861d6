from django.db.models import Count, Q, QuerySet
from django.shortcuts import get_object_or_404

from jobs.models import JobInstance

from .models import BlacklistEntry, Daemon


def daemon_list() -> QuerySet[Daemon]:
    # By name, explicitly: Meta.ordering does not apply to an aggregate (GROUP BY) query.
    return Daemon.objects.annotate(
        active_instances=Count("instances", filter=Q(instances__state__in=list(JobInstance.ACTIVE)))).order_by("name")


def daemon_get(*, daemon_id: int) -> Daemon:
    return get_object_or_404(daemon_list(), id=daemon_id)


def daemon_running_jobs(*, daemon_ids: list[int]) -> dict[int, list[dict]]:
    """daemon id -> [{id, name, instances}] of the jobs holding active instances there
    (RESERVED or RUNNING), by job id."""
    rows = (JobInstance.objects.filter(daemon_id__in=daemon_ids, state__in=list(JobInstance.ACTIVE))
            .values("daemon_id", "job_id", "job__name").annotate(n=Count("id")).order_by("daemon_id", "job_id"))
    out: dict[int, list[dict]] = {d: [] for d in daemon_ids}
    for row in rows:
        out[row["daemon_id"]].append({"id": row["job_id"], "name": row["job__name"], "instances": row["n"]})
    return out


def blacklist_entries() -> QuerySet[BlacklistEntry]:
    return BlacklistEntry.objects.all()
