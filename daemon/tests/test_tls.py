"""The daemon speaks TLS to the controller and verifies its certificate (SPLAY did not):
against the config's `ca_file`, else the system's CAs. A certificate it cannot verify is a
failed connection (retried, logged), never a silent downgrade. The certificates are made
here with `openssl` (a self-signed CA for 127.0.0.1 and an unrelated one)."""
from __future__ import annotations

import asyncio
import logging
import ssl
import subprocess
from pathlib import Path

import pytest

from .utils import FakeController, make_config, running_daemon


def _self_signed(directory: Path, name: str) -> tuple[Path, Path]:
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", f"/CN={name}", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


@pytest.fixture
async def tls_controller(tmp_path: Path):
    cert, key = _self_signed(tmp_path, "controller")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    ctrl = FakeController(tls=context)
    await ctrl.start()
    yield ctrl, cert
    await ctrl.stop()


async def test_a_daemon_trusting_the_controllers_ca_connects_over_tls(tls_controller, tmp_path: Path) -> None:
    ctrl, cert = tls_controller
    config = make_config(tmp_path, ctrl.url, ca_file=str(cert))
    async with running_daemon(config):
        await ctrl.wait_until(lambda: ctrl.connected.is_set(), timeout=5)
        assert ctrl.hellos[0]["key"] == "good-key"


async def test_a_certificate_it_cannot_verify_is_refused_and_nothing_is_sent(
    tls_controller, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ctrl, _ = tls_controller
    other, _ = _self_signed(tmp_path, "impostor-ca")
    caplog.set_level(logging.WARNING, logger="splayd")
    for ca_file in (str(other), None):  # a wrong CA, then the system's CAs
        overrides = {"ca_file": ca_file} if ca_file else {}
        async with running_daemon(make_config(tmp_path, ctrl.url, **overrides)):
            await asyncio.sleep(1.0)
        assert ctrl.hellos == []  # the key never left the daemon
    assert "CERTIFICATE_VERIFY_FAILED" in caplog.text
