from django.urls import path

from . import views

urlpatterns = [
    path("jwks/", views.jwks_view, name="lti-jwks"),
    path("login/", views.login_view, name="lti-login"),
    path("launch/", views.launch_view, name="lti-launch"),
    path("deep-link/", views.deep_link_view, name="lti-deep-link"),
    path("register/<str:token>/", views.register_view, name="lti-register"),
]
