"""ASGI entry: Django for http, Channels for websockets (/ws/daemon/, /ws/jobs/<id>/,
/ws/submissions/).

HTTP requests run Django's WSGI handler in a pool of threads (a2wsgi): every view is sync, and
Django's ASGI handler paid per request for a thread of its own and hops between the event loop
and it (6.1-6.6 ms of CPU per API read against 4.4-4.7 ms this way: bench/web_cpu.py,
docs/decisions.md "Web tier")."""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splaylab.settings")
get_asgi_application()  # sets Django up before consumers import models

from a2wsgi import WSGIMiddleware  # noqa: E402
from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.urls import path  # noqa: E402

from daemons.consumers import DaemonConsumer  # noqa: E402
from daemons.services import web_started_record  # noqa: E402
from grading.consumers import SubmissionsConsumer  # noqa: E402
from lib.body_limit import BodyLimitMiddleware  # noqa: E402
from logs.consumers import JobConsumer  # noqa: E402

from .websocket_origin import SameOriginValidator  # noqa: E402

websocket_urlpatterns = [
    path("ws/daemon/", DaemonConsumer.as_asgi()),  # key auth in the hello; no Origin header
    # Session-authenticated browsers: refuse cross-site pages (same origin or configured ones,
    # whatever ALLOWED_HOSTS says: splaylab/websocket_origin.py).
    path("ws/jobs/<int:job_id>/", SameOriginValidator(JobConsumer.as_asgi())),
    path("ws/submissions/", SameOriginValidator(SubmissionsConsumer.as_asgi())),   # one's own
]

web_started_record()  # daemons reconnecting now are not unreachable (daemons_mark_unreachable)

# As many request threads as pooled database connections (a thread beyond would wait for one).
django_http_app = WSGIMiddleware(get_wsgi_application(), workers=max(4, settings.SPLAYLAB_DB_POOL))

application = ProtocolTypeRouter({
    # Bodies past the largest endpoint cap stop here, before Django spools them (lib.parsers).
    "http": BodyLimitMiddleware(django_http_app, max(settings.SPLAYLAB_MAX_BODY_BYTES,
                                                     settings.SPLAYLAB_MAX_UPLOAD_BYTES)),
    "websocket": AuthMiddlewareStack(URLRouter(websocket_urlpatterns)),
})
