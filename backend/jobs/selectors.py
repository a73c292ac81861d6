from django.db.models import QuerySet
from django.http import Http404

from accounts.models import User

from .models import Job

JOB_LIST_LIMIT = 200


def job_list(*, user: User) -> QuerySet[Job]:
    qs = Job.objects.select_related("owner")
    return qs if user.sees_everything else qs.filter(owner=user)


def job_get(*, user: User, job_id: int) -> Job:
    """404 (not 403) for another student's job."""
    try:
        return job_list(user=user).prefetch_related("instances__daemon").get(id=job_id)
    except Job.DoesNotExist as exc:
        raise Http404("no such job") from exc


def job_visible(*, user_id: int, job_id: int) -> bool:
    """Fresh from the database (role or is_active may have changed since login)."""
    user = User.objects.filter(id=user_id, is_active=True).first()
    return user is not None and job_list(user=user).filter(id=job_id).exists()
