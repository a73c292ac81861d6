"""START answers at once and the nodes are launched afterwards, each reported by its own
`instance` frame (daemon/splayd/launch.py): no reply waits for N process launches.

To make "before the nodes are launched" deterministic, the tests hold the launch at a gate
(an asyncio.Event in front of JobManager._spawn); the processes themselves are real."""
from __future__ import annotations

import asyncio
from pathlib import Path

from .utils import FakeController

SLEEPER = 'print("up")\nwhile true do events.sleep(0.05) end'


def hold_launches(server) -> asyncio.Event:
    gate = asyncio.Event()
    spawn = server.jobs._spawn

    async def held(job, inst, held=False):
        await gate.wait()
        await spawn(job, inst, held=held)

    server.jobs._spawn = held
    return gate


async def listed(controller: FakeController, job: int, nodes: int) -> list[int]:
    reply = await controller.command("register", job=job, count=nodes, duration=30)
    assert reply["ok"], reply
    ports = reply["ports"]
    reply = await controller.command("list", job=job, code=SLEEPER, filename="app.lua",
                                     instances=[{"node": k + 1, "port": p} for k, p in enumerate(ports)],
                                     nodes=[{"ip": "127.0.0.1", "port": p} for p in ports])
    assert reply["ok"], reply
    return ports


async def test_start_answers_before_any_node_runs_then_each_reports_running(
        controller: FakeController, run_daemon) -> None:
    async with run_daemon(max_instances=6) as server:
        await listed(controller, 1, 6)
        gate = hold_launches(server)
        reply = await controller.command("start", job=1)
        assert reply == {**reply, "ok": True, "accepted": [1, 2, 3, 4, 5, 6]}
        assert controller.states(1) == [] and server.jobs.running() == []  # nothing launched yet
        again = await controller.command("start", job=1)  # a START resent meanwhile starts nothing twice
        assert again["ok"] and again["accepted"] == []
        gate.set()
        await controller.wait_until(lambda: len(controller.states(1)) == 6, timeout=10)
        assert sorted((m["node"], m["state"]) for m in controller.states(1)) == [(k, "RUNNING") for k in range(1, 7)]
        await controller.command("stop", job=1)


async def test_stop_during_the_launch_starts_no_more_and_reports_every_node_killed(
        controller: FakeController, run_daemon, tmp_path: Path) -> None:
    async with run_daemon(max_instances=6) as server:
        await listed(controller, 2, 6)
        gate = hold_launches(server)
        assert (await controller.command("start", job=2))["ok"]
        stop = asyncio.create_task(controller.command("stop", job=2))
        await asyncio.sleep(0.2)
        gate.set()  # the spawns under way (LAUNCH_CONCURRENCY) finish; the rest never start
        assert (await stop)["ok"]
        finals = [await controller.wait_final(2, k) for k in range(1, 7)]
        assert [(f["state"], f["reason"]) for f in finals] == [("KILLED", "stopped by the controller")] * 6
        ran = {m["node"] for m in controller.states(2) if m["state"] == "RUNNING"}
        assert len(ran) < 6  # not every node was launched
        assert all(len([m for m in controller.states(2, k) if m["state"] != "RUNNING"]) == 1 for k in range(1, 7))
        assert server.jobs.jobs == {} and not (tmp_path / "work" / "job-2").exists()
        assert server.jobs.running() == []


async def test_a_freed_slot_is_not_launched(controller: FakeController, run_daemon) -> None:
    async with run_daemon(max_instances=6) as server:
        ports = await listed(controller, 3, 6)
        gate = hold_launches(server)
        assert (await controller.command("start", job=3))["ok"]
        assert (await controller.command("free", job=3, ports=ports[4:]))["ok"]
        gate.set()
        await server.jobs.launched(3)
        await controller.wait_until(lambda: len(controller.states(3)) == 4, timeout=10)
        assert sorted(m["node"] for m in controller.states(3)) == [1, 2, 3, 4]
        assert sorted(i.port for i in server.jobs.running()) == sorted(ports[:4])
        await controller.command("stop", job=3)
