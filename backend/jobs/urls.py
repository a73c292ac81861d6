from django.urls import path

from . import apis

urlpatterns = [
    path("", apis.JobListApi.as_view(), name="job-list"),
    path("<int:job_id>/", apis.JobDetailApi.as_view(), name="job-detail"),
    path("<int:job_id>/rerun/", apis.JobRerunApi.as_view(), name="job-rerun"),
    path("<int:job_id>/stop/", apis.JobStopApi.as_view(), name="job-stop"),
    path("<int:job_id>/churn/", apis.JobChurnApi.as_view(), name="job-churn"),
]
