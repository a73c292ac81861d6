from django.urls import path

from . import apis

urlpatterns = [
    path("", apis.DaemonListApi.as_view(), name="daemon-list"),
    path("reachability/", apis.ReachabilityApi.as_view(), name="daemon-reachability"),
    path("blacklist/", apis.BlacklistApi.as_view(), name="daemon-blacklist"),
    path("blacklist/<int:entry_id>/", apis.BlacklistEntryApi.as_view(), name="daemon-blacklist-entry"),
    path("<int:daemon_id>/revoke/", apis.DaemonRevokeApi.as_view(), name="daemon-revoke"),
    path("<int:daemon_id>/rotate-key/", apis.DaemonRotateKeyApi.as_view(), name="daemon-rotate-key"),
    path("<int:daemon_id>/drain/", apis.DaemonDrainApi.as_view(), name="daemon-drain"),
    path("<int:daemon_id>/undrain/", apis.DaemonUndrainApi.as_view(), name="daemon-undrain"),
]
