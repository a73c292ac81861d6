"""The SPA shell: every non-API path gets frontend/dist/index.html (client-side routing); and
the JSON 404 of unknown /api/ paths."""
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import page_not_found
from django.views.decorators.csrf import ensure_csrf_cookie

NOT_BUILT = """SplayLab: the web frontend is not built yet.

Build it with `cd frontend && npm ci && npm run build` (output: frontend/dist/), then reload.
The API is available meanwhile at /api/ (docs at /api/docs/).
"""


@ensure_csrf_cookie
def spa_index(request: HttpRequest) -> HttpResponse:
    index = settings.FRONTEND_DIST / "index.html"
    try:
        html = index.read_text(encoding="utf-8")
    except FileNotFoundError:
        return HttpResponse(NOT_BUILT, status=503, content_type="text/plain; charset=utf-8")
    response = HttpResponse(html, content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-cache"  # assets are hashed; the shell must stay fresh
    return response


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler404: under /api/ a JSON 404 like DRF's (an id that is not a number, a path that
    does not exist), so API clients always get JSON; elsewhere Django's page."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": f"no API path {request.path}"}, status=404)
    return page_not_found(request, exception)
