from django.urls import path

from . import apis

urlpatterns = [path("", apis.DaemonListApi.as_view(), name="daemon-list")]
