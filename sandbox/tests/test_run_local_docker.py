"""`run_local.py --backend docker`: the same runs as the process backend, in one hardened
container (splayd's Docker backend). The engine is started by scripts/start-dockerd.sh (never
skipped); the sandbox image is built when absent. About 30 s on 2 cores.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SANDBOX = Path(__file__).resolve().parent.parent
REPO = SANDBOX.parent
APPS = SANDBOX / "apps"

# Five nodes: logs, metrics, one runtime error, one node that outlives the duration.
SMALL = '''require "splay.base"
local metrics = require "splay.metrics"
print("hello from", job.position, #job.nodes)
log.info("info", job.position)
metrics.observe("x", job.position, {a = 1})
metrics.count("c", 2)
if job.position == 3 then error("boom") end
if job.position == 5 then while true do events.sleep(10) end end
'''


@pytest.fixture(scope="module", autouse=True)
def docker_engine() -> None:
    proc = subprocess.run([str(REPO / "scripts" / "start-dockerd.sh")], capture_output=True, text=True,
                          timeout=150)
    assert proc.returncode == 0, f"scripts/start-dockerd.sh failed:\n{proc.stdout}\n{proc.stderr}"


def run(app: Path, nodes: int, seconds: float, tmp_path: Path, backend: str,
        env: dict[str, str] | None = None) -> tuple[int, list[dict[str, Any]], str]:
    out = tmp_path / f"{backend}.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(SANDBOX / "run_local.py"), str(app), "--nodes", str(nodes), "--time", str(seconds),
         "--seed", "7", "--out", str(out), "--quiet", "--backend", backend],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    _, err = proc.communicate(timeout=seconds + 60)
    if backend == "docker":  # the run's container is gone
        import docker

        client = docker.from_env()
        try:
            left = client.containers.list(all=True, filters={"label": f"splaylab.daemon=run-local-{proc.pid}"})
        finally:
            client.close()
        assert left == []
    records = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return proc.returncode, records, err


def per_node(records: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    """Each node's records in order, without the timestamps."""
    nodes: dict[int, list[dict[str, Any]]] = {}
    for r in records:
        assert isinstance(r.pop("t"), float | int)
        nodes.setdefault(r["node"], []).append(r)
    return nodes


def test_docker_gives_the_same_records_and_exit_status_as_the_process_backend(tmp_path: Path) -> None:
    app = tmp_path / "small.lua"
    app.write_text(SMALL)
    rc_p, rec_p, _ = run(app, 5, 3, tmp_path, "process")
    rc_d, rec_d, err = run(app, 5, 3, tmp_path, "docker")
    assert (rc_d, rc_p) == (1, 1), err  # node 3 failed
    docker_nodes = per_node(rec_d)
    assert docker_nodes == per_node(rec_p)
    for k in range(1, 6):
        assert docker_nodes[k][:4] == [
            {"node": k, "kind": "log", "level": "print", "text": f"hello from\t{k}\t5"},
            {"node": k, "kind": "log", "level": "info", "text": f"info {k}"},
            {"node": k, "kind": "metric", "name": "x", "value": k, "type": "observe", "fields": {"a": 1}},
            {"node": k, "kind": "metric", "name": "c", "value": 2, "type": "count"},
        ]
    assert [r for r in docker_nodes[3][4:] if r["kind"] == "log"][0]["text"] == "app.lua:7: boom"
    exits = {k: (v[-1]["kind"], v[-1]["code"], v[-1]["text"]) for k, v in docker_nodes.items()}
    assert exits == {1: ("exit", 0, "ended normally"), 2: ("exit", 0, "ended normally"),
                     3: ("exit", 1, "ended with exit code 1"), 4: ("exit", 0, "ended normally"),
                     5: ("exit", 0, "stopped: duration of 3.0 s reached")}


def test_epidemic_broadcast_reaches_every_node_on_both_backends(tmp_path: Path) -> None:
    # 20 nodes talking over UDP RPC on host networking; every node exits by itself after ~9 s.
    # (Not 40: Docker starts its execs one after the other, ~75 ms each, and under load the
    # last of 40 could start after the rumor's 2 s of pushes, which the app does not wait for.)
    outcomes = {}
    for backend in ("process", "docker"):
        rc, records, err = run(APPS / "epidemic.lua", 20, 20, tmp_path, backend)
        reached = {r["node"] for r in records
                   if r["kind"] == "log" and re.fullmatch(r"received rumor-1 hops=\d+", r["text"])}
        exits = {(r["code"], r["text"]) for r in records if r["kind"] == "exit"}
        errors = [r for r in records if r["kind"] == "log" and r["level"] == "error"]
        hops = sorted(r["node"] for r in records if r["kind"] == "metric" and r["name"] == "epidemic_hops")
        outcomes[backend] = (rc, reached, exits, errors, hops, err)
    expected = (0, set(range(1, 21)), {(0, "ended normally")}, [], list(range(1, 21)), "")
    assert outcomes["process"] == expected
    assert outcomes["docker"] == expected


def test_docker_without_an_engine_says_so(tmp_path: Path) -> None:
    app = tmp_path / "small.lua"
    app.write_text(SMALL)
    env = {"PATH": "/usr/bin:/bin", "DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock"}
    out = tmp_path / "docker.jsonl"
    proc = subprocess.run(
        [sys.executable, str(SANDBOX / "run_local.py"), str(app), "--nodes", "2", "--time", "1",
         "--out", str(out), "--backend", "docker"], capture_output=True, text=True, timeout=30, env=env)
    assert proc.returncode == 2
    assert proc.stderr == ("run_local: --backend docker: no Docker engine answers (DOCKER_HOST or "
                           "/var/run/docker.sock); start one, e.g. `sudo scripts/start-dockerd.sh`, "
                           "or use --backend process\n")
    assert not out.exists()
