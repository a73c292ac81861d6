"""Fixtures of the multi-host tests (helpers: tests/multihost_helpers.py).

`mh_stack` (session): the bridge slbr0 (10.77.0.1/24), then the real stack with no local
daemon, web bound to 10.77.0.1:8770 (database splaylab_it_mh, Redis db 8).
`hosts(n, ...)` (per test): n test hosts, each a network namespace slh<k> (10.77.0.(10+k))
running its own splayd; removed at the end of the test, whatever happened.

Needs root: run as another user, every test here fails with the reason (no silent skip).
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from multihost_helpers import (BRIDGE_IP, Host, NatHost, bridge_up, cleanup_all, config_override,
                               require_root, wait_daemon_states)
from stack_helpers import RunningStack, running_stack

MH_PORT = 8770
_TESTS = itertools.count(1)

PerHost = dict[int, Any] | Callable[[int], Any] | None


@pytest.fixture(scope="session")
def mh_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    why = require_root()
    if why:
        pytest.fail(why, pytrace=False)
    bridge_up()
    try:
        with running_stack(tmp_path_factory.mktemp("mh-stack"), MH_PORT, "splaylab_it_mh", 8,
                           daemons=0, host=BRIDGE_IP) as s:
            yield s
    finally:
        cleanup_all()


def _for_host(value: PerHost, i: int) -> Any:
    if value is None:
        return None
    return value(i) if callable(value) else value.get(i)


@pytest.fixture
def hosts(mh_stack: RunningStack, tmp_path: Path) -> Iterator[Callable[..., list[Host]]]:
    """hosts(n, max_instances=10, ports=(20000, 20099), config=None, per_host=None,
    extra_toml=None, start=True, wait_online=True, nat=False) -> [Host, ...]

    Each new host gets a daemon `mh<test>-<k>` created by `manage.py daemon_create` (its key,
    controller ws://10.77.0.1:8770/ws/daemon/), with `ip` = the host's address. `config`: keys
    set in every host's TOML ({"max_mem_mb": 128}); `per_host`: {i: {...}} or a function of i
    (1-based within this call) giving more keys; `extra_toml`: text appended (str, or
    {i: str} / function), e.g. a TOML table. start=False: namespace and config only (call
    .daemon_start()). nat=True: each host sits behind a home router of its own
    (multihost_helpers.NatHost: masquerading, no port forwarding). Called again in the same test,
    it adds hosts k+1, k+2, ...
    """
    test_no = next(_TESTS)
    made: list[Host] = []
    # An earlier test's host that died with its cable cut (no FIN reached the controller) stays
    # ONLINE until the controller's heartbeat watchdog drops it (SPLAYLAB_DAEMON_DEAD_AFTER):
    # wait for that, so that no job of this test is scheduled on a dead daemon.
    leftovers = [d["name"] for d in mh_stack.api("GET", "/api/daemons/", token=mh_stack.teacher_token)]
    if leftovers:
        wait_daemon_states(mh_stack, leftovers, {"OFFLINE", "UNSEEN"}, timeout=30)
    controller = f"ws://{BRIDGE_IP}:{mh_stack.cfg.port}/ws/daemon/"

    def make(n: int, *, max_instances: int = 10, ports: tuple[int, int] = (20000, 20099),
             config: dict[str, Any] | None = None, per_host: PerHost = None,
             extra_toml: str | PerHost = None, start: bool = True, wait_online: bool = True,
             timeout: float = 30, nat: bool = False) -> list[Host]:
        new: list[Host] = []
        for i in range(1, n + 1):
            k = len(made) + 1
            name = f"mh{test_no}-{k}"
            folder = tmp_path / f"host-{k}"
            folder.mkdir()
            conf = folder / "splayd.toml"
            mh_stack.manage("daemon_create", name, "--max-instances", str(max_instances),
                            "--ports", f"{ports[0]}-{ports[1]}", "--controller", controller,
                            "--write-config", str(conf))
            host = (NatHost if nat else Host)(k=k, daemon_name=name, config=conf, log=folder / "splayd.log")
            made.append(host)
            host.create()
            keys = {"ip": host.ip, **(config or {}), **(_for_host(per_host, i) or {})}
            text = config_override(conf.read_text(), keys)
            extra = extra_toml if isinstance(extra_toml, str) else _for_host(extra_toml, i)
            conf.write_text(text + (("\n" + extra.strip() + "\n") if extra else ""))
            new.append(host)
        if start:
            for host in new:
                host.daemon_start()
            if wait_online:
                try:
                    wait_daemon_states(mh_stack, [h.daemon_name for h in new], {"ONLINE"}, timeout)
                except AssertionError:
                    for h in new:
                        print(f"----- {h.name} {h.daemon_name} daemon log (tail)\n{h.log_text()[-3000:]}")
                    raise
        return new

    try:
        yield make
    finally:
        for host in made:
            try:
                host.destroy()
            finally:
                # Shown only when the test failed (pytest prints captured output then).
                print(f"----- {host.name} ({host.ip}) {host.daemon_name} daemon log (tail)\n"
                      f"{host.log_text()[-3000:]}")
