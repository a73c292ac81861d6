from django.urls import path

from . import apis

urlpatterns = [
    path("<int:job_id>/metrics/", apis.JobMetricsApi.as_view(), name="job-metrics"),
    path("<int:job_id>/metrics/chunks/", apis.JobMetricChunksApi.as_view(), name="job-metric-chunks"),
]
