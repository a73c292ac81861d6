"""The SPA shell: every non-API path gets frontend/dist/index.html (client-side routing)."""
from django.conf import settings
from django.http import HttpRequest, HttpResponse
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
