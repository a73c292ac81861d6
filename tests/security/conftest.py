"""Fixtures shared by the hostile-program suites."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from security.hostile import docker_image_tag, remove_docker_leftovers


@pytest.fixture(scope="module")
def docker_engine() -> Iterator[None]:
    """The engine (started when none answers) and the sandbox image, built once; this run's
    containers are removed at the end (each job's own is removed when the job ends)."""
    docker_image_tag()
    yield
    assert remove_docker_leftovers() == []
