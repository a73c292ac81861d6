"""`pip install ./daemon` as a volunteer would do it: a fresh venv, the `splayd` command, the Lua
runtime inside the package, and that installed daemon running a job for a real controller.

The install copies daemon/ and sandbox/ to a temporary folder first (pip builds in the source
tree, which is shared) and takes websockets, docker, setuptools from PyPI (through pip's cache).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stack_helpers import ROOT, running_stack

pytestmark = pytest.mark.stack

PKG_PORT = 8767
RUNTIME = ("node.lua", "lib", "netmodel.py", "netmodel_placement.py", "data/cities.csv")  # = daemon/setup.py RUNTIME_FILES
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "build", "*.egg-info", ".pytest_cache")


class Installed:
    def __init__(self, venv: Path, work: Path, src: Path) -> None:
        self.venv, self.work, self.src = venv, work, src  # src: the copy of the checkout installed
        self.splayd = str(venv / "bin" / "splayd")
        self.package = Path(self.run(str(venv / "bin" / "python"), "-c",
                                     "import splayd, os; print(os.path.dirname(splayd.__file__))").stdout.strip())

    def run(self, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
        # cwd outside the repository, an environment without the repo's paths
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        return subprocess.run(list(argv), cwd=self.work, env=env, capture_output=True, text=True,
                              timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    tmp = tmp_path_factory.mktemp("pkg")
    shutil.copytree(ROOT / "daemon", tmp / "src" / "daemon",
                    ignore=lambda d, names: {*IGNORE(d, names), *(n for n in names if n in ("tests", "splayd-work"))})
    shutil.copytree(ROOT / "sandbox", tmp / "src" / "sandbox", ignore=IGNORE)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    t0 = time.monotonic()
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--disable-pip-version-check",
                          str(tmp / "src" / "daemon")], capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, f"pip install ./daemon failed (PyPI reachable?):\n{pip.stdout[-3000:]}\n{pip.stderr[-3000:]}"
    print(f"pip install ./daemon: {time.monotonic() - t0:.1f} s")
    work = tmp / "home"
    work.mkdir()
    return Installed(venv, work, tmp / "src")


def test_pip_install_provides_the_splayd_command_with_its_version(installed: Installed) -> None:
    result = installed.run(installed.splayd, "--version")

    assert result.returncode == 0, result.stderr
    version = re.search(r'__version__ = "([^"]+)"', (ROOT / "daemon/splayd/__init__.py").read_text()).group(1)
    assert result.stdout.strip() == f"splayd {version} (protocol 3)"
    assert installed.package.is_relative_to(installed.venv)  # the installed copy, not the checkout


def test_the_lua_runtime_is_inside_the_installed_package(installed: Installed) -> None:
    runtime = installed.package / "runtime"
    src = installed.src / "sandbox"
    expected = sorted(
        p.relative_to(src).as_posix() for name in RUNTIME for p in ([src / name] if (src / name).is_file()
                                                                  else (src / name).rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts)
    shipped = sorted(p.relative_to(runtime).as_posix() for p in runtime.rglob("*")
                     if p.is_file() and "__pycache__" not in p.parts)
    assert shipped == expected
    assert all((runtime / rel).read_bytes() == (src / rel).read_bytes() for rel in expected)
    assert "lib/splaylab/socket.lua" in shipped and not any(s.startswith(("spec/", "apps/", "tests/")) for s in shipped)


def test_check_config_validates_and_names_the_runtime(installed: Installed, tmp_path: Path) -> None:
    good = tmp_path / "splayd.toml"
    good.write_text('name = "vol-1"\ncontroller = "ws://127.0.0.1:9/ws/daemon/"\nkey = "k"\n'
                    "max_instances = 4\nports = [30000, 30009]\n")
    bad = tmp_path / "bad.toml"
    bad.write_text(good.read_text().replace("[30000, 30009]", "[30000, 30001]"))

    ok = installed.run(installed.splayd, "--check-config", str(good))
    refused = installed.run(installed.splayd, "--check-config", str(bad))

    assert ok.returncode == 0, ok.stderr
    assert f"runtime {installed.package / 'runtime'}" in ok.stdout
    assert refused.returncode == 2
    assert "ports: range 30000-30001 holds 2 ports, fewer than max_instances (4)" in refused.stderr


@pytest.fixture(scope="module")
def bare_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """A stack of its own with no local daemon: only the installed one can run the job."""
    with running_stack(tmp_path_factory.mktemp("pkg-stack"), PKG_PORT, "splaylab_it_pkg", 7, daemons=0) as s:
        yield s


def test_the_installed_daemon_runs_a_job_for_a_real_controller(installed: Installed, bare_stack,
                                                                 tmp_path: Path) -> None:
    conf = tmp_path / "splayd.toml"
    bare_stack.manage("daemon_create", "pkg-1", "--max-instances", "4", "--ports", "31000-31009",
                      "--controller", f"ws://127.0.0.1:{PKG_PORT}/ws/daemon/", "--write-config", str(conf))
    log = tmp_path / "splayd.log"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    with open(log, "wb") as out:
        proc = subprocess.Popen([installed.splayd, "--config", str(conf)], cwd=installed.work, env=env,
                                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            daemons = bare_stack.api("GET", "/api/daemons/", token=bare_stack.teacher_token)
            if any(d["name"] == "pkg-1" and d["state"] == "ONLINE" for d in daemons):
                break
            assert proc.poll() is None, log.read_text()
            time.sleep(0.2)
        else:
            raise AssertionError(f"pkg-1 not ONLINE: {log.read_text()}")

        job = bare_stack.api("POST", "/api/jobs/", {"name": "pkg", "nodes": 3, "duration": 20, "code":
                             'require "splay.base"\nprint("hello from " .. job.position .. " of " .. #job.nodes)\n'})
        job = bare_stack.wait_job(job["id"], {"ENDED", "FAILED", "KILLED", "NO_RESOURCES"}, timeout=60)
        lines = bare_stack.api("GET", f"/api/jobs/{job['id']}/logs/")["lines"]

        assert job["state"] == "ENDED", (job, log.read_text())
        assert {(i["daemon"], i["state"]) for i in job["instances"]} == {("pkg-1", "ENDED")}
        assert sorted(ln["text"] for ln in lines) == [f"hello from {k} of 3" for k in (1, 2, 3)]
        # (the installed package has no ../sandbox: its own splayd/runtime is the only runtime)
        assert proc.poll() is None
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert "splayd" in log.read_text()
