"""Failed guesses of secrets (passwords, join codes) counted in the shared cache (Redis, so
every web process sees them), and refused with 429 + Retry-After past a limit
(docs/decisions.md, "Bad input").

Only failures count: a class signing in at once behind one NAT address is never slowed, and a
test suite signing in a thousand times neither. A counter lives `window` seconds from its first
failure; while it is at its limit every attempt on that key is refused, the right secret too
(otherwise the lockout would only slow the guesser down by one request)."""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from django.core.cache import cache
from rest_framework.request import Request

from lib.errors import ApplicationError


@dataclass(frozen=True)
class AttemptLimit:
    scope: str  # "login", "join"
    key: str  # e.g. "user:alice|ip:10.0.0.7" (hashed into the cache key: any username is a safe key)
    limit: int
    window: float  # seconds
    what: str  # the refusal's words: "failed sign-ins for this user from your address"

    @property
    def cache_key(self) -> str:
        return f"attempts:{self.scope}:{hashlib.sha256(self.key.encode()).hexdigest()}"


def client_ip(request: Request) -> str:
    """The peer's address as the server saw it (a proxy's X-Forwarded-For is not trusted here:
    uvicorn --proxy-headers rewrites the peer when the proxy is)."""
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def attempts_check(limits: list[AttemptLimit]) -> None:
    """429 when one of `limits` is used up; Retry-After is the time until its window ends."""
    now = time.time()
    for lim in limits:
        state = cache.get(lim.cache_key)
        if state and state[0] >= lim.limit:
            wait = max(1, int(state[1] + lim.window - now + 0.999))
            raise ApplicationError(f"too many {lim.what} ({state[0]} in {lim.window:g} s): try again in {wait} s",
                                   status_code=429, headers={"Retry-After": str(wait)})


def attempt_failed(limits: list[AttemptLimit]) -> None:
    """Count one failure on each of `limits` (the window starts at the first)."""
    now = time.time()
    for lim in limits:
        state = cache.get(lim.cache_key)
        if not state or now - state[1] >= lim.window:
            state = (0, now)
        remaining = max(1, int(state[1] + lim.window - now + 0.999))
        cache.set(lim.cache_key, (state[0] + 1, state[1]), timeout=remaining)
