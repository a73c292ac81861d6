from django.urls import path

from . import apis

urlpatterns = [
    path("", apis.WorkspaceListApi.as_view(), name="workspace-list"),
    path("<int:workspace_id>/", apis.WorkspaceDetailApi.as_view(), name="workspace-detail"),
]
