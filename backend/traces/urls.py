from django.urls import path

from . import apis

urlpatterns = [
    path("<int:job_id>/trace/", apis.JobTraceApi.as_view(), name="job-trace"),
]
