"""Shared fixtures of the cross-component tests (see stack_helpers.py)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from stack_helpers import CHROMIUM_ARGS, STACK_PORT, RunningStack, running_stack


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    """The shared stack (session-wide): two daemons of 100 slots each, on port 8765."""
    with running_stack(tmp_path_factory.mktemp("stack"), STACK_PORT, "splaylab_it", 5) as s:
        yield s




@pytest.fixture(scope="session")
def chromium() -> Iterator[object]:
    """Debian's chromium (/usr/bin/chromium), headless, driven by Playwright."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium, stack):
    """A fresh browser context per test (its own cookies), 1280x800."""
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, base_url=stack.url)
    context.set_default_timeout(20_000)
    pg = context.new_page()
    yield pg
    context.close()
