from django.urls import path, re_path

from . import apis

urlpatterns = [
    path("", apis.CourseListApi.as_view(), name="course-list"),
    re_path(r"^join/?$", apis.CourseJoinApi.as_view(), name="course-join"),
    path("<int:course_id>/", apis.CourseDetailApi.as_view(), name="course-detail"),
    path("<int:course_id>/join-code/", apis.CourseJoinCodeApi.as_view(), name="course-join-code"),
]
