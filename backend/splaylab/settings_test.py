"""Test settings: same services, but a private channel-layer prefix so a running dev stack
sharing the Redis never sees test messages (and vice versa)."""
import os

from .settings import *  # noqa: F401,F403
from .settings import CHANNEL_LAYERS

CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = f"splaylab-test-{os.getpid()}"
CHANNEL_LAYERS["live"]["CONFIG"]["prefix"] = f"splaylab-test-{os.getpid()}-live"
# Failed-attempt counters (lib.attempts) per test process, emptied before each test (conftest.py).
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
SPLAYLAB_REGISTER_TIMEOUT = 3.0
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
