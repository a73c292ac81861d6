from django.urls import path

from . import apis

COURSE = "courses/<int:course_id>/"
ASSIGNMENT = COURSE + "assignments/<slug:slug>/"

urlpatterns = [
    path(COURSE + "assignments/", apis.AssignmentListApi.as_view(), name="assignment-list"),
    path(ASSIGNMENT, apis.AssignmentDetailApi.as_view(), name="assignment-detail"),
    path(ASSIGNMENT + "regrade/", apis.AssignmentRegradeApi.as_view(), name="assignment-regrade"),
    path(ASSIGNMENT + "distribution/", apis.AssignmentDistributionApi.as_view(), name="assignment-distribution"),
    path(ASSIGNMENT + "submissions/", apis.SubmissionListApi.as_view(), name="submission-list"),
    path("submissions/<int:submission_id>/", apis.SubmissionDetailApi.as_view(), name="submission-detail"),
    path("submissions/<int:submission_id>/regrade/", apis.SubmissionRegradeApi.as_view(),
         name="submission-regrade"),
    path("submissions/<int:submission_id>/regrade-requests/", apis.SubmissionRegradeRequestsApi.as_view(),
         name="submission-regrade-requests"),
    path(COURSE + "regrade-requests/", apis.CourseRegradeRequestsApi.as_view(), name="course-regrade-requests"),
    path("regrade-requests/<int:request_id>/answer/", apis.RegradeRequestAnswerApi.as_view(),
         name="regrade-request-answer"),
    path(COURSE + "gradebook/", apis.GradebookApi.as_view(), name="gradebook"),
    path(COURSE + "gradebook.csv", apis.GradebookCsvApi.as_view(), name="gradebook-csv"),
    path(COURSE + "gradebook/<slug:slug>/<int:student_id>/", apis.GradeOverrideApi.as_view(),
         name="grade-override"),
]
