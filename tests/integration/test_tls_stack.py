"""The daemons speak TLS to the controller and verify its certificate (SPLAY did not): the
real stack served over https/wss by uvicorn with a self-signed certificate made here with
openssl; the local daemons' configs name it as `ca_file` (as `./splaylab up` does with
SPLAYLAB_TLS_CERT / SPLAYLAB_TLS_KEY). A job runs through that encrypted link."""
from __future__ import annotations

import ssl
import subprocess
import urllib.request
from pathlib import Path

import pytest

from stack_helpers import running_stack

pytestmark = pytest.mark.stack

HELLO = 'require "splay.base"\nevents.run(function() print("hello over tls from " .. job.position) end)\n'


def test_daemons_connect_over_verified_tls_and_a_job_runs(tmp_path: Path) -> None:
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
        job = s.api("POST", "/api/jobs/", {"code": HELLO, "nodes": 2, "duration": 10})
        done = s.wait_job(job["id"], {"ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=60)
        assert done["state"] == "ENDED", done
        logs = s.api("GET", f"/api/jobs/{job['id']}/logs/")
        texts = [ln["text"] for ln in logs["lines"]]
        assert sorted(t for t in texts if "over tls" in t) == ["hello over tls from 1", "hello over tls from 2"]
        # Plain http is not served at all: the daemons could not have fallen back to it.
        with pytest.raises(Exception):
            urllib.request.urlopen("http://127.0.0.1:8769/api/auth/me/", timeout=5)
        # And the certificate is really checked: an untrusting client is refused.
        with pytest.raises(urllib.error.URLError) as refused:
            urllib.request.urlopen(s.url + "/api/auth/me/", timeout=5, context=ssl.create_default_context())
        assert "CERTIFICATE_VERIFY_FAILED" in str(refused.value)
