"""Reads on jobs. Who sees a job: its owner, the instructors and TAs of a course the owner is a
student of, superusers (courses.selectors.supervised_q); anyone else gets 404."""
from django.db.models import QuerySet
from django.http import Http404

from accounts.models import User
from courses.selectors import supervised_q

from .models import Job

JOB_LIST_LIMIT = 200


def job_list(*, user: User) -> QuerySet[Job]:
    qs = Job.objects.select_related("owner")
    visible = supervised_q(user=user)
    return qs if visible is None else qs.filter(visible)


def job_get(*, user: User, job_id: int) -> Job:
    """404 (not 403) for a job the user may not see."""
    try:
        return job_list(user=user).prefetch_related("instances__daemon").get(id=job_id)
    except Job.DoesNotExist as exc:
        raise Http404("no such job") from exc


def job_visible(*, user_id: int, job_id: int) -> bool:
    """job_get's rule, fresh from the database (memberships or is_active may have changed since
    login): the job websocket checks it on connect and while relaying."""
    user = User.objects.filter(id=user_id, is_active=True).first()
    return user is not None and job_list(user=user).filter(id=job_id).exists()
