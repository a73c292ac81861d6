"""Reads on daemons. Site operators (courses.selectors.user_is_operator) see and manage every
daemon; an instructor those linked to a course they instruct (Course.daemons); others none (404)."""
from django.db.models import Count, Q, QuerySet
from django.shortcuts import get_object_or_404

from accounts.models import User
from courses.selectors import staff_course_ids, user_is_operator
from jobs.models import JobInstance
from jobs.selectors import job_list

from .models import BlacklistEntry, Daemon


def daemon_list(*, user: User) -> QuerySet[Daemon]:
    """The daemons the user manages, each with `active_instances`."""
    qs = Daemon.objects.all()
    if not user_is_operator(user):
        qs = qs.filter(id__in=Daemon.objects.filter(
            courses__in=staff_course_ids(user=user, instructors_only=True)).values("id"))
    # By name, explicitly: Meta.ordering does not apply to an aggregate (GROUP BY) query.
    return qs.annotate(
        active_instances=Count("instances", filter=Q(instances__state__in=list(JobInstance.ACTIVE)))).order_by("name")


def daemon_get(*, user: User, daemon_id: int) -> Daemon:
    """404 for a daemon the user does not manage."""
    return get_object_or_404(daemon_list(user=user), id=daemon_id)


def daemon_running_jobs(*, user: User, daemon_ids: list[int]) -> dict[int, list[dict]]:
    """daemon id -> [{id, name, instances}] of the jobs holding active instances there
    (RESERVED or RUNNING), by job id: those the user may see (jobs.selectors; every job for an
    operator), so a daemon shared by two courses does not show one course's jobs to the other."""
    instances = JobInstance.objects.filter(daemon_id__in=daemon_ids, state__in=list(JobInstance.ACTIVE))
    if not user_is_operator(user):
        instances = instances.filter(job__in=job_list(user=user).values("id"))
    rows = (instances
            .values("daemon_id", "job_id", "job__name").annotate(n=Count("id")).order_by("daemon_id", "job_id"))
    out: dict[int, list[dict]] = {d: [] for d in daemon_ids}
    for row in rows:
        out[row["daemon_id"]].append({"id": row["job_id"], "name": row["job__name"], "instances": row["n"]})
    return out


def blacklist_entries() -> QuerySet[BlacklistEntry]:
    return BlacklistEntry.objects.all()
