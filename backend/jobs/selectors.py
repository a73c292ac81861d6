"""Reads on jobs. Who sees a job: its owner, the instructors and TAs of a course the owner is a
student of, superusers (courses.selectors.supervised_q); anyone else gets 404."""
from django.db.models import QuerySet, prefetch_related_objects
from django.http import Http404

from accounts.models import User
from courses.selectors import supervised_q, supervises

from .models import Job

JOB_LIST_LIMIT = 200


def job_list(*, user: User) -> QuerySet[Job]:
    qs = Job.objects.select_related("owner")
    visible = supervised_q(user=user)
    return qs if visible is None else qs.filter(visible)


def job_get(*, user: User, job_id: int, instances: bool = True) -> Job:
    """404 (not 403) for a job the user may not see. Fetched by id, then judged by job_list's
    rule (supervises: no query when it is the user's own): building supervised_q's subqueries
    cost more CPU than the rest of a read (bench/class_load.py). `instances`: with its
    instances and their daemons (what the job's page shows), fetched only once it is visible."""
    job = Job.objects.select_related("owner").filter(id=job_id).first()
    if job is None or not supervises(user=user, owner_id=job.owner_id):
        raise Http404("no such job")
    if instances:
        prefetch_related_objects([job], "instances__daemon")
    return job


def job_visible(*, user_id: int, job_id: int) -> bool:
    """job_get's rule, fresh from the database (memberships or is_active may have changed since
    login): the job websocket checks it on connect and while relaying."""
    user = User.objects.filter(id=user_id, is_active=True).first()
    owner_id = Job.objects.filter(id=job_id).values_list("owner_id", flat=True).first()
    return user is not None and owner_id is not None and supervises(user=user, owner_id=owner_id)
