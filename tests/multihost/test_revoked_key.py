"""A revoked key is refused at once (issue 8, security): an instructor revokes a connected test
host's daemon (POST /api/daemons/<id>/revoke/); the controller sends it `refused` and closes
the link (4001), and the daemon stops for good (exit code 1, "controller refused this daemon:
daemon key revoked"), without waiting for any timeout. Started again with the same config, it
is refused at its hello and stops just as fast."""
from __future__ import annotations

import subprocess
import time

import pytest

from multihost_helpers import wait_daemon_states

pytestmark = pytest.mark.stack

REFUSED = "controller refused this daemon: daemon key revoked"
PROMPTLY = 5.0   # seconds; the daemon's heartbeat watchdog alone would take SPLAYLAB_DAEMON_DEAD_AFTER


def wait_exit(host, timeout: float) -> tuple[int, float]:
    t0 = time.monotonic()
    try:
        code = host.proc.wait(timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{host.daemon_name} still running {timeout} s later:\n{host.log_text()[-2000:]}")
    return code, time.monotonic() - t0


def test_a_revoked_key_is_refused_at_once_and_at_every_later_hello(mh_stack, hosts) -> None:
    host, witness = hosts(2, max_instances=2)
    rows = mh_stack.api("GET", "/api/daemons/", token=mh_stack.teacher_token)
    daemon = next(d for d in rows if d["name"] == host.daemon_name)
    assert daemon["state"] == "ONLINE" and daemon["revoked"] is False, daemon

    revoked = mh_stack.api("POST", f"/api/daemons/{daemon['id']}/revoke/", token=mh_stack.teacher_token)
    assert revoked["revoked"] is True, revoked
    code, took = wait_exit(host, PROMPTLY)
    print(f"revoked daemon exited {took:.2f} s after the revoke")
    assert code == 1, host.log_text()[-2000:]
    assert host.log_text().count(REFUSED) == 1, host.log_text()[-2000:]
    wait_daemon_states(mh_stack, [host.daemon_name], {"OFFLINE"}, timeout=PROMPTLY)
    assert witness.daemon_alive()            # only that key: the other host stays connected
    wait_daemon_states(mh_stack, [witness.daemon_name], {"ONLINE"}, timeout=1)

    host.daemon_start()                       # same config, same (revoked) key
    code, took = wait_exit(host, PROMPTLY)
    print(f"restarted daemon refused and exited {took:.2f} s after its start")
    assert code == 1, host.log_text()[-2000:]
    assert host.log_text().count(REFUSED) == 2, host.log_text()[-2000:]
    row = next(d for d in mh_stack.api("GET", "/api/daemons/", token=mh_stack.teacher_token)
               if d["name"] == host.daemon_name)
    assert row["state"] == "OFFLINE" and row["revoked"] is True, row
