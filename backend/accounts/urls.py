from django.urls import path

from . import apis

urlpatterns = [
    path("login/", apis.LoginApi.as_view(), name="auth-login"),
    path("logout/", apis.LogoutApi.as_view(), name="auth-logout"),
    path("me/", apis.MeApi.as_view(), name="auth-me"),
    path("token/", apis.TokenApi.as_view(), name="auth-token"),
]
