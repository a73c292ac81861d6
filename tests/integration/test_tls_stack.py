"""The daemons speak TLS to the controller and verify its certificate (SPLAY did not): the
real stack served over https/wss by uvicorn with a self-signed certificate made here with
openssl; the local daemons' configs name it as `ca_file` (as `./splaylab up` does with
SPLAYLAB_TLS_CERT / SPLAYLAB_TLS_KEY), and their node relay links verify it too. A job runs
through that encrypted link."""
from __future__ import annotations

import ssl
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from stack_helpers import running_stack

pytestmark = pytest.mark.stack

HELLO = 'require "splay.base"\nevents.run(function() print("hello over tls from " .. job.position) end)\n'


def test_daemons_connect_over_verified_tls_and_a_job_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = tmp_path / "controller.pem", tmp_path / "controller.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=splaylab-test", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    # Its own port and database: the session's shared stack (8765) may be up meanwhile.
    with running_stack(tmp_path / "stack", 8769, "splaylab_it_tls", 9, daemons=2, tls=(cert, key)) as s:
        assert s.url.startswith("https://")
        for conf in sorted((tmp_path / "stack" / "daemons").glob("lab-*.toml")):
            text = conf.read_text()
            assert 'controller = "wss://127.0.0.1:8769/ws/daemon/"' in text and str(cert) in text
        daemons = s.api("GET", "/api/daemons/", token=s.teacher_token)
        assert [d["state"] for d in daemons] == ["ONLINE", "ONLINE"]
        # The node relay (issue 24) is served over wss with the same certificate, and verified.
        for log in ("lab-1.log", "lab-2.log"):
            text = ""
            for _ in range(50):
                text = (tmp_path / "stack" / "log" / log).read_text()
                if "relay link up (wss://127.0.0.1:9769/)" in text:
                    break
                time.sleep(0.1)
            assert "relay link up (wss://127.0.0.1:9769/)" in text, text[-2000:]
        # The certificate is really checked: a client that does not trust it is refused.
        with pytest.raises(urllib.error.URLError) as refused:
            urllib.request.urlopen(s.url + "/api/auth/me/", timeout=5, context=ssl.create_default_context())
        assert "CERTIFICATE_VERIFY_FAILED" in str(refused.value)
        # The CLI (https, and wss for --follow) trusts the certificate through SSL_CERT_FILE.
        app = tmp_path / "hello.lua"
        app.write_text(HELLO)
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        result = s.cli("submit", str(app), "--nodes", "2", "--time", "10", "--follow")
        assert result.returncode == 0, result.stdout + result.stderr
        assert "hello over tls from 1" in result.stdout and "hello over tls from 2" in result.stdout
        job_id = int(result.stderr.split("job ", 1)[1].split(" ", 1)[0])
        assert s.api("GET", f"/api/jobs/{job_id}/")["state"] == "ENDED"
        # Plain http is not served at all: the daemons could not have fallen back to it.
        with pytest.raises(Exception):
            urllib.request.urlopen("http://127.0.0.1:8769/api/auth/me/", timeout=5)
