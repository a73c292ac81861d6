from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from .views import spa_index

handler404 = "splaylab.views.not_found"  # JSON under /api/

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/auth/", include("accounts.urls")),
    path("api/workspaces/", include("workspaces.urls")),
    path("api/jobs/", include("jobs.urls")),
    path("api/jobs/", include("logs.urls")),
    path("api/jobs/", include("metrics.urls")),
    path("api/jobs/", include("traces.urls")),
    path("api/jobs/", include("retention.urls")),
    path("api/daemons/", include("daemons.urls")),
    path("api/scenarios/", include("scenarios.urls")),
    path("api/courses/", include("courses.urls")),
    path("api/", include("grading.urls")),
    path("api/", include("lti.api_urls")),
    path("lti/", include("lti.urls")),  # the LMS's browser: forms and redirects, not the API
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    # Everything else is the SPA (WhiteNoise answers /static/ before Django routing).
    re_path(r"^(?!api/|admin/|static/|ws/|lti/).*$", spa_index, name="spa"),
]
