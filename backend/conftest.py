"""Shared fixtures: the two personas (teacher, student), a second student for cross-user
checks, API clients, and channel-layer hygiene."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import DEFAULT_CHANNEL_LAYER, channel_layers
from django.core.cache import cache
from django.db import connections
from rest_framework.test import APIClient

from accounts.models import User
from accounts.tests.factories import user_make


@pytest.fixture
def teacher(db: None) -> User:
    return user_make("teacher", role=User.Role.INSTRUCTOR)


@pytest.fixture
def student(db: None) -> User:
    return user_make("student", role=User.Role.STUDENT)


@pytest.fixture
def other_student(db: None) -> User:
    return user_make("alice", role=User.Role.STUDENT)


@pytest.fixture
def ta(db: None) -> User:
    return user_make("tara", role=User.Role.TA)


@pytest.fixture
def anon_client() -> APIClient:
    return APIClient()


def _client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def student_client(student: User) -> APIClient:
    return _client_for(student)


@pytest.fixture
def teacher_client(teacher: User) -> APIClient:
    return _client_for(teacher)


@pytest.fixture
def other_client(other_student: User) -> APIClient:
    return _client_for(other_student)


@pytest.fixture(autouse=True)
def _fresh_channel_layer() -> Iterator[None]:
    """Each async test has its own event loop; a channels_redis layer remembers the loop it
    received on, so every test starts with a fresh layer instance."""
    channel_layers.backends = {}
    yield
    channel_layers.backends = {}


@pytest.fixture(autouse=True)
def _no_failed_attempts_left() -> Iterator[None]:
    """Failed sign-ins and join codes of one test never lock out the next (a local cache in tests)."""
    cache.clear()
    yield


@pytest.fixture(autouse=True)
def _close_thread_sensitive_connections() -> Iterator[None]:
    """Async tests reach the database through asgiref's single sync thread; close its
    connection after each test so the test database can be dropped at the end."""
    yield
    SyncToAsync.single_thread_executor.submit(connections.close_all).result()


@pytest.fixture(autouse=True, scope="session")
def _flush_test_channel_layer() -> Iterator[None]:
    yield
    layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
    async_to_sync(layer.flush)()  # only keys under this run's private prefix
