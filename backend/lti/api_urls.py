from django.urls import path

from . import apis

COURSE = "courses/<int:course_id>/lti/"

urlpatterns = [
    path(COURSE + "platforms/", apis.PlatformListApi.as_view(), name="lti-platform-list"),
    path(COURSE + "platforms/<int:platform_id>/", apis.PlatformDetailApi.as_view(), name="lti-platform-detail"),
    path(COURSE + "roster-sync/", apis.RosterSyncApi.as_view(), name="lti-roster-sync"),
]
