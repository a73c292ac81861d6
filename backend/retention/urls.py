from django.urls import path

from . import apis

urlpatterns = [
    path("<int:job_id>/archive/", apis.JobArchiveApi.as_view(), name="job-archive"),
    path("<int:job_id>/retention/", apis.JobRetentionApi.as_view(), name="job-retention"),
]
