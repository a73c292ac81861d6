"""The job websocket answers whom the REST job detail answers (the authorization matrix's world
and rows, test_authorization_matrix.py), and only pages of this site or configured origins."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from asgiref.sync import SyncToAsync
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client

from accounts.models import User
from splaylab.asgi import application

from test_authorization_matrix import A, ACTORS, ANON, B, CASES, World, world_make


# ---- the job websocket: the REST job detail's rights, and only pages of this site -------------

def _session_cookie(user: User) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _job_socket(world: World, actor: str, *, origin: str | None = "http://testserver",
                      host: str = "testserver") -> tuple[bool, WebsocketCommunicator]:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if actor != ANON:
        headers.append((b"cookie", await database_sync_to_async(_session_cookie)(world.users[actor])))
    ws = WebsocketCommunicator(application, f"/ws/jobs/{world.job.id}/", headers=headers)
    connected, _ = await ws.connect(timeout=5)
    return connected, ws


@pytest.fixture(autouse=True)
def _fresh_channel_layer_and_connections() -> Iterator[None]:
    """As backend/conftest.py: each async test has its own event loop (so its own channel-layer
    instance), and asgiref's sync thread closes its connection so the test database can go."""
    channel_layers.backends = {}
    yield
    channel_layers.backends = {}
    SyncToAsync.single_thread_executor.submit(connections.close_all).result()


@pytest.mark.django_db(transaction=True)
async def test_job_socket_admits_whom_the_job_detail_admits() -> None:
    world = await database_sync_to_async(world_make)()
    detail = next(c for c in CASES if (c.name, c.method) == ("job-detail", "get"))
    for actor in ACTORS:
        connected, ws = await _job_socket(world, actor)
        assert connected == (detail.expect[actor] == 200), actor
        if connected:
            message = await ws.receive_json_from(timeout=5)
            assert (message["type"], message["job"]["id"]) == ("job.state", world.job.id)
            await ws.disconnect()


FOREIGN_ORIGINS = [
    ("http://evil.example", "testserver"),             # another site's page
    ("http://testserver.evil.example", "testserver"),
    ("http://testserver:8080", "testserver"),          # another port is another origin
    ("http://testserver:8443", "testserver"),
    ("null", "testserver"),                            # sandboxed iframes, file: pages
    ("http://[bad", "testserver"),                     # not even a URL
    ("http://testserver:99999", "testserver"),
    ("https://evil.example.org", "10.0.0.5:8000"),     # not the configured lab.example.org
]
OWN_ORIGINS = [
    ("http://testserver", "testserver"),
    ("https://testserver", "testserver"),                 # TLS ended by a proxy in front
    ("https://lab.example.org", "lab.example.org:443"),  # a default port, written or not
    ("http://LAB.example.org:8000", "lab.example.org:8000"),
    ("https://lab.example.org", "10.0.0.5:8000"),         # behind a proxy: SPLAYLAB_ALLOWED_ORIGINS
    ("https://b.example.net", "10.0.0.5:8000"),           # CSRF_TRUSTED_ORIGINS, Django's wildcard
    (None, "testserver"),                                 # no Origin: not a browser (CLI, bench)
]


@pytest.mark.django_db(transaction=True)
async def test_job_socket_accepts_only_its_own_and_configured_origins_whatever_allowed_hosts_says(
        settings) -> None:
    settings.ALLOWED_HOSTS = ["*"]
    settings.SPLAYLAB_ALLOWED_ORIGINS = ["https://lab.example.org"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://*.example.net"]
    world = await database_sync_to_async(world_make)()
    for origin, host in FOREIGN_ORIGINS:
        connected, _ = await _job_socket(world, A, origin=origin, host=host)
        assert not connected, (origin, host)
    for origin, host in OWN_ORIGINS:
        connected, ws = await _job_socket(world, A, origin=origin, host=host)
        assert connected, (origin, host)
        await ws.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_job_socket_without_origin_still_checks_the_session() -> None:
    world = await database_sync_to_async(world_make)()
    for actor in (B, ANON):
        connected, _ = await _job_socket(world, actor, origin=None)
        assert not connected, actor
