"""A whole daemon on the Docker backend (`sandbox = "docker"`), against the REAL engine.

The session fixture starts dockerd through scripts/start-dockerd.sh when none answers (as
test_docker_backend.py does). The daemon is a real in-process Server driven by the
FakeController of tests/utils.py, exactly as in test_protocol.py.
"""
from __future__ import annotations

import logging
import os
import subprocess
import time
from pathlib import Path
from typing import Iterator

import docker
import pytest

from splayd.docker_backend import LABEL_DAEMON, container_name
from splayd.server import Server

from .utils import REPO, FakeController, make_config

pytestmark = pytest.mark.timeout(120)
NAME = f"dockerd-test-{os.getpid()}"
SLEEPER = 'print("up")\nwhile true do events.sleep(0.05) end'


@pytest.fixture(scope="module")
def engine() -> Iterator[docker.DockerClient]:
    proc = subprocess.run([str(REPO / "scripts" / "start-dockerd.sh")], capture_output=True, text=True, timeout=150)
    assert proc.returncode == 0, f"scripts/start-dockerd.sh failed:\n{proc.stdout}\n{proc.stderr}"
    client = docker.from_env(timeout=60)
    yield client
    for c in client.containers.list(all=True, filters={"label": f"{LABEL_DAEMON}={NAME}"}):
        c.remove(force=True)
    client.close()


def containers(engine: docker.DockerClient) -> list[str]:
    return [c.name for c in engine.containers.list(all=True, filters={"label": f"{LABEL_DAEMON}={NAME}"})]


async def test_a_docker_daemon_runs_a_job_of_3_instances_end_to_end(
    controller: FakeController, run_daemon, tmp_path: Path, engine: docker.DockerClient,
) -> None:
    # A container left by a previous run of this daemon is removed at startup.
    stale = engine.containers.create(_any_sandbox_image(engine),
                                     command=["/usr/bin/luajit", "-v"], name=f"{NAME}-stale",
                                     labels={LABEL_DAEMON: NAME})
    code = 'print(job.position, job.me.port, #job.nodes)\nlocal x = 0\nfor i = 1, 3 do x = x + 1 end\nprint("x", x)'
    t0 = time.monotonic()
    async with run_daemon(name=NAME, sandbox="docker") as server:
        assert server.jobs.isolation.backend == "docker"
        hello = controller.hellos[0]
        assert (hello["name"], hello["sandbox"]) == (NAME, "docker")
        with pytest.raises(docker.errors.NotFound):
            engine.containers.get(stale.id)
        ports = await controller.deploy(5, code, nodes=3)
        for k in (1, 2, 3):
            final = await controller.wait_final(5, k, timeout=15)
            assert (final["state"], final["reason"], final["exit_code"]) == ("ENDED", "ended normally", 0)
            texts = [ln["text"] for ln in controller.lines(5, k)]
            assert texts == [f"{k}\t{ports[k - 1]}\t3", "x\t3"]
        await controller.wait_until(lambda: not (tmp_path / "work" / "job-5").exists())
        await server.jobs.wait_closed()
        assert containers(engine) == []  # the job's container went with the job
        # a limit hit reads the same as on the process backend, and stop kills through the engine
        await controller.deploy(6, "while true do end", nodes=1, max_cpu=1)
        final = await controller.wait_final(6, 1, timeout=15)
        assert (final["state"], final["reason"], final["exit_code"]) == (
            "FAILED", "killed: CPU time limit of 1 s exceeded", -24)
        await controller.deploy(7, SLEEPER, nodes=2)
        await controller.wait_until(lambda: len(controller.lines(7)) == 2, timeout=15)
        assert containers(engine) == [container_name(NAME, 7)]
        assert (await controller.command("stop", job=7))["ok"]
        for k in (1, 2):
            final = await controller.wait_final(7, k)
            assert (final["state"], final["reason"], final["exit_code"]) == ("KILLED", "stopped by the controller", -9)
        await server.jobs.wait_closed()
        assert containers(engine) == []
        # shutdown kills what still runs and removes its container
        await controller.deploy(8, SLEEPER, nodes=1)
        await controller.wait_until(lambda: controller.lines(8), timeout=15)
    final = controller.final_state(8, 1)
    assert final is not None and (final["state"], final["reason"]) == ("KILLED", "daemon shutting down")
    assert containers(engine) == []
    print(f"docker daemon test: {time.monotonic() - t0:.1f} s")


async def test_a_churn_job_on_docker_joins_at_the_instant_and_leaves_gracefully(
    controller: FakeController, run_daemon, engine: docker.DockerClient,
) -> None:
    """The held join's gate (a FIFO the daemon creates) opens inside the container, whose user is
    not the daemon's; a graceful leave reaches LuaJIT in the container."""
    from .test_churn import churn_deploy

    code = ('print("up")\nevents.on_leave(function() print("bye") end)\n'
            'events.run(function() while true do events.sleep(0.1) end end)')
    events = {"1": [[1.0, "join", False], [2.5, "leave", True]]}
    async with run_daemon(name=NAME, sandbox="docker"):
        await churn_deploy(controller, 61, code, events, nodes=1, end=4.0, lead=0.3)
        running = await controller.wait_until(
            lambda: [m for m in controller.states(61, 1) if m["state"] == "RUNNING"], timeout=15)
        assert abs(running[0]["churn"]["t"] - 1.0) < 0.1, running
        final = await controller.wait_final(61, 1, timeout=10)
        assert (final["state"], final["reason"]) == ("ENDED", "left at 2.5 s by the scenario (gracefully)"), final
        texts = [ln["text"] for ln in controller.lines(61, 1)]
        assert texts[0] == "up" and "bye" in texts, texts


def _any_sandbox_image(engine: docker.DockerClient) -> str:
    from splayd.docker_image import IMAGE_REPO

    tags = [t for im in engine.images.list(name=IMAGE_REPO) for t in im.tags]
    if tags:
        return tags[0]
    from splayd.config import DEFAULT_SANDBOX_DIR
    from splayd.docker_image import ensure_image

    return ensure_image(DEFAULT_SANDBOX_DIR, client=engine)


async def test_docker_without_an_engine_stops_the_daemon_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")
    server = Server(make_config(tmp_path, "ws://127.0.0.1:1/ws/daemon/", sandbox="docker"))
    with caplog.at_level(logging.ERROR, logger="splayd"):
        assert await server.serve() == 2
    assert 'sandbox = "docker" but no Docker engine answers' in caplog.text
