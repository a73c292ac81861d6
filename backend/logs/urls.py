from django.urls import path

from . import apis

urlpatterns = [
    path("<int:job_id>/logs/", apis.JobLogsApi.as_view(), name="job-logs"),
    path("<int:job_id>/logs/download/", apis.JobLogsDownloadApi.as_view(), name="job-logs-download"),
]
