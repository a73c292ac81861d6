from __future__ import annotations

from pathlib import Path
from typing import Any, AsyncIterator, Callable

import pytest

from splayd.server import Server

from .utils import FakeController, make_config, running_daemon


@pytest.fixture
async def controller() -> AsyncIterator[FakeController]:
    """A loopback websockets server standing in for the Django controller."""
    ctrl = FakeController()
    await ctrl.start()
    yield ctrl
    await ctrl.stop()


@pytest.fixture
def run_daemon(tmp_path: Path, controller: FakeController) -> Callable[..., Any]:
    """`async with run_daemon(**config_overrides) as server:` runs a real splayd in-process,
    connected to the `controller` fixture (welcome awaited)."""

    def factory(wait_connected: bool = True, **overrides: Any) -> Any:
        import contextlib

        @contextlib.asynccontextmanager
        async def cm() -> AsyncIterator[Server]:
            config = make_config(tmp_path, controller.url, **overrides)
            async with running_daemon(config) as server:
                if wait_connected:
                    await controller.wait_until(lambda: controller.connected.is_set())
                yield server

        return cm()

    return factory
