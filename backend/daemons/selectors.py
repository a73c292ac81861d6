from django.db.models import Count, Q, QuerySet

from jobs.models import JobInstance

from .models import Daemon


def daemon_list() -> QuerySet[Daemon]:
    return Daemon.objects.annotate(
        active_instances=Count("instances", filter=Q(instances__state__in=list(JobInstance.ACTIVE))))
