"""The browser websocket's Origin check, whatever ALLOWED_HOSTS says (docs/decisions.md,
"Authorization"): channels' AllowedHostsOriginValidator passes every Origin when ALLOWED_HOSTS
is "*", which let any site's page open /ws/jobs/<id>/ with a student's session cookie.

Accepted: an Origin naming the host the request was sent to (the Host header: same origin, so
any deployment works without configuration), one of SPLAYLAB_ALLOWED_ORIGINS or
CSRF_TRUSTED_ORIGINS ("https://lab.example.org", "https://*.example.org"), or no Origin at
all: browsers always send one on a websocket handshake, so a request without one comes from a
non-browser client (CLI, bench, curl), which cannot ride a victim's cookies; the consumer still
checks the session's rights."""
from __future__ import annotations

from typing import Any
from urllib.parse import ParseResult, urlparse

from channels.security.websocket import OriginValidator, WebsocketDenier
from django.conf import settings

DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin1")
    return None


def configured_origins() -> list[str]:
    """Django's CSRF_TRUSTED_ORIGINS writes a subdomain wildcard "https://*.x.org"; channels'
    patterns write it "https://.x.org"."""
    return [o.replace("://*.", "://.") for o in
            [*getattr(settings, "SPLAYLAB_ALLOWED_ORIGINS", []), *settings.CSRF_TRUSTED_ORIGINS] if o]


def same_origin(origin: ParseResult, host: str | None) -> bool:
    """The Origin names the host the request was sent to (the Host header). A Host without a port
    came to a default port: the Origin must then carry one too, 80 or 443 whatever its scheme (a
    TLS proxy in front means the page is https while this process sees plain ws); a Host with a
    port needs the Origin's (explicit or default) port to be that one."""
    if not host or origin.hostname is None or origin.scheme not in DEFAULT_PORTS:
        return False
    try:
        requested = urlparse(f"//{host}")
        origin_port = origin.port or DEFAULT_PORTS[origin.scheme]
        requested_port = requested.port
    except ValueError:  # a port that is not a number
        return False
    if requested.hostname != origin.hostname:
        return False
    return origin_port in (80, 443) if requested_port is None else origin_port == requested_port


class SameOriginValidator(OriginValidator):
    """channels' OriginValidator plus the same-origin rule and the missing-Origin choice above."""

    def __init__(self, application: Any) -> None:
        super().__init__(application, allowed_origins=[])

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] != "websocket":
            raise ValueError("SameOriginValidator guards websocket connections only")
        if self.origin_allowed(scope):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)

    def origin_allowed(self, scope: dict[str, Any]) -> bool:
        raw = _header(scope, b"origin")
        if raw is None:
            return True
        try:
            origin = urlparse(raw.strip().lower())
            if same_origin(origin, _header(scope, b"host")):
                return True
            return any(pattern == "*" or self.match_allowed_origin(origin, pattern)
                       for pattern in configured_origins())
        except ValueError:  # "http://[bad", a port that is not a number: not an origin we know
            return False
