"""The test hosts' own faults do what the later multi-host tests rely on: a cut link makes the
host unreachable and back, a killed host leaves no process behind and its daemon goes
offline, a restarted daemon comes back online."""
from __future__ import annotations

import sys
import time

import pytest

from multihost_helpers import BRIDGE_IP, daemon_states, wait_daemon_states

pytestmark = pytest.mark.stack


def reaches_controller(host, port: int) -> bool:
    probe = f"import socket; socket.create_connection(({BRIDGE_IP!r}, {port}), 1).close()"
    return host.exec(sys.executable, "-c", probe).returncode == 0


def wait_until(check, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


def test_link_cut_kill_and_restart_of_a_test_host(mh_stack, hosts) -> None:
    h1, h2 = hosts(2, max_instances=2)
    port = mh_stack.cfg.port
    assert reaches_controller(h1, port) and reaches_controller(h2, port)

    h1.link_down()
    assert not reaches_controller(h1, port)
    assert reaches_controller(h2, port)            # only h1's cable is cut
    assert h1.daemon_alive()                       # and nothing inside h1 was told
    h1.link_up()
    assert wait_until(lambda: reaches_controller(h1, port))

    killed = h2.kill()
    assert h2.proc.pid in killed and not h2.daemon_alive() and h2.pids() == []
    wait_daemon_states(mh_stack, [h2.daemon_name], {"OFFLINE"}, timeout=15)

    h2.daemon_start()
    h1.daemon_restart()
    wait_daemon_states(mh_stack, [h1.daemon_name, h2.daemon_name], {"ONLINE"}, timeout=30)
    assert set(daemon_states(mh_stack, [h1.daemon_name, h2.daemon_name]).values()) == {"ONLINE"}
