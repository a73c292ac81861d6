from django.urls import path

from . import apis

urlpatterns = [
    path("", apis.ScenarioListApi.as_view(), name="scenario-list"),
    path("preview/", apis.ChurnPreviewApi.as_view(), name="scenario-preview"),
    path("trace/", apis.ChurnTraceApi.as_view(), name="scenario-trace"),
    path("<int:scenario_id>/", apis.ScenarioDetailApi.as_view(), name="scenario-detail"),
]
