"""Churn timelines on the daemon (docs/churn.md, "On the service"): LIST carries each node's
joins and leaves, START fixes t = 0 `lead` seconds later, and the daemon starts and kills its
real luajit nodes against its own clock, reporting each join and leave with its planned and
actual time. The controller's side is the FakeController (tests/utils.py)."""
from __future__ import annotations

import asyncio
from typing import Any

from .utils import FakeController

LOGGER = 'print("up")\nwhile true do print("tick") events.sleep(0.1) end'


async def churn_deploy(controller: FakeController, job: int, code: str, events: dict[str, list],
                       nodes: int, end: float | None = None, duration: float = 30, lead: float = 0.2) -> dict:
    reply = await controller.command("register", job=job, count=nodes, max_mem=2**27, max_cpu=5, duration=duration)
    assert reply["ok"], reply
    ports = reply["ports"]
    reply = await controller.command(
        "list", job=job, code=code, filename="app.lua",
        instances=[{"node": k + 1, "port": p} for k, p in enumerate(ports)],
        nodes=[{"ip": "127.0.0.1", "port": p} for p in ports], churn={"events": events, "end": end})
    assert reply["ok"], reply
    start = await controller.command("start", job=job, lead=lead)
    assert start["ok"] and start["started"] == [], start
    return start


def ended(controller: FakeController, job: int, node: int) -> dict | None:
    return next((m for m in controller.states(job, node) if m["state"] in ("ENDED", "FAILED", "KILLED")), None)


def churn_of(controller: FakeController, job: int) -> list[tuple[int, str, Any]]:
    return [(m["node"], m["churn"]["event"], m["state"]) for m in controller.states(job) if "churn" in m]


async def test_nodes_join_and_leave_at_their_planned_times_and_report_both(controller: FakeController, run_daemon) -> None:
    events = {"1": [[0, "join", False], [1.0, "leave", False], [1.6, "join", False]],
              "2": [[0.5, "join", False], [2.0, "leave", False]]}
    async with run_daemon():
        await churn_deploy(controller, 41, LOGGER, events, nodes=2, end=3.0)
        assert controller.states(41) == []  # nothing runs before its join (t = 0 is 0.2 s away)
        await controller.wait_until(lambda: len(churn_of(controller, 41)) == 5, timeout=6)
        assert churn_of(controller, 41) == [(1, "join", "RUNNING"), (2, "join", "RUNNING"),
                                            (1, "leave", "LEFT"), (1, "join", "RUNNING"), (2, "leave", "ENDED")]
        for m in controller.states(41):
            if "churn" in m:  # the daemon's clock is within 100 ms of the plan
                assert abs(m["churn"]["t"] - m["churn"]["planned"]) < 0.1, m
        left = [m for m in controller.states(41, 1) if m["state"] == "LEFT"][0]
        assert left["reason"] == "left at 1 s by the scenario (as a failure)" and left["exit_code"] == -9
        final = await controller.wait_until(lambda: ended(controller, 41, 1), timeout=4)
        assert final["reason"] == "the scenario ended"
        # one log stream per node across its sessions: seq never repeats
        seqs = [ln["seq"] for ln in controller.lines(41, 1)]
        assert len(seqs) == len(set(seqs)) and seqs == sorted(seqs)
        assert sum(1 for ln in controller.lines(41, 1) if ln["text"] == "up") == 2


async def test_a_crash_before_the_nodes_next_join_is_reported_left_and_the_join_still_happens(
        controller: FakeController, run_daemon) -> None:
    code = 'print("session")\nevents.run(function() events.sleep(0.3) error("boom") end)'
    events = {"1": [[0, "join", False], [2.0, "leave", False], [2.5, "join", False]]}
    async with run_daemon():
        await churn_deploy(controller, 42, code, events, nodes=1, end=3.5)
        await controller.wait_until(lambda: [m for m in controller.states(42, 1) if m["state"] == "LEFT"], timeout=4)
        crashed = [m for m in controller.states(42, 1) if m["state"] == "LEFT"][0]
        assert "churn" not in crashed and crashed["reason"].startswith("runtime error"), crashed
        await controller.wait_until(lambda: len([m for m in controller.states(42, 1) if m["state"] == "RUNNING"]) == 2,
                                    timeout=4)
        rejoin = [m for m in controller.states(42, 1) if m["state"] == "RUNNING"][1]
        assert rejoin["churn"]["event"] == "join" and rejoin["churn"]["planned"] == 2.5
        final = await controller.wait_until(lambda: ended(controller, 42, 1), timeout=3)  # no join left
        assert final["state"] == "FAILED" and final["reason"].startswith("runtime error"), final


async def test_a_graceful_leave_lets_the_node_say_goodbye(controller: FakeController, run_daemon) -> None:
    code = ('print("up")\nevents.on_leave(function() print("bye") end)\n'
            'events.run(function() while true do events.sleep(0.1) end end)')
    events = {"1": [[0, "join", False], [0.8, "leave", True]]}
    async with run_daemon():
        await churn_deploy(controller, 43, code, events, nodes=1, end=5)
        final = await controller.wait_final(43, 1, timeout=5)
        assert final["state"] == "ENDED" and final["reason"] == "left at 0.8 s by the scenario (gracefully)"
        assert final["churn"]["graceful"] is True
        assert final["exit_code"] == 0, final  # it ended on its own after its handler, not SIGKILLed
        texts = [ln["text"] for ln in controller.lines(43, 1)]
        assert texts[-3:] == ["leaving gracefully", "bye", "left gracefully"], texts


async def test_a_spare_joins_on_command_and_follows_the_positions_remaining_events(
        controller: FakeController, run_daemon) -> None:
    events = {"1": [[0, "join", False]]}  # node 2 is a spare: no events of its own
    async with run_daemon():
        await churn_deploy(controller, 44, LOGGER, events, nodes=2, end=2.5)
        await controller.wait_until(lambda: controller.states(44, 1), timeout=3)
        reply = await controller.command("join", job=44, node=2, plays=1, events=[[1.5, "leave", False]])
        assert reply["ok"], reply
        running = await controller.wait_until(lambda: [m for m in controller.states(44, 2) if m["state"] == "RUNNING"])
        assert running[0]["churn"] == {**running[0]["churn"], "event": "join", "planned": None, "plays": 1}
        final = await controller.wait_final(44, 2, timeout=4)
        assert (final["state"], final["churn"]["event"]) == ("ENDED", "leave")
        again = await controller.command("join", job=44, node=2, plays=1, events=[])
        assert again["ok"] is False and "not a free spare" in again["reason"]


async def test_an_unused_spare_and_a_node_never_joined_end_with_the_scenario(controller: FakeController, run_daemon) -> None:
    events = {"1": [[0, "join", False]], "2": [[60, "join", False]]}  # node 3: a spare
    async with run_daemon():
        await churn_deploy(controller, 45, LOGGER, events, nodes=3, end=1.0)
        finals = [await controller.wait_final(45, k, timeout=4) for k in (1, 2, 3)]
        assert [(f["state"], f["reason"]) for f in finals] == [
            ("ENDED", "the scenario ended"), ("ENDED", "the scenario ended"), ("ENDED", "spare, not needed")]
        await asyncio.sleep(0.3)
        reply = await controller.command("register", job=46, count=4, max_mem=2**27, max_cpu=5, duration=5)
        assert reply["ok"], reply  # every slot of the churn job was released


async def test_bad_timelines_are_refused_with_the_reason(controller: FakeController, run_daemon) -> None:
    async with run_daemon():
        reply = await controller.command("register", job=47, count=1, max_mem=2**27, max_cpu=5, duration=5)
        port = reply["ports"][0]
        base: dict[str, Any] = {"job": 47, "code": LOGGER, "instances": [{"node": 1, "port": port}],
                                "nodes": [{"ip": "127.0.0.1", "port": port}]}
        bad = await controller.command("list", **base, churn={"events": {"2": [[0, "join", False]]}})
        assert bad["ok"] is False and bad["reason"] == "churn: node 2 is not listed on this daemon"
        bad = await controller.command("list", **base, churn={"events": {"1": [[-1, "join", False]]}})
        assert bad["ok"] is False and "expected [t >= 0, 'join' | 'leave', graceful]" in bad["reason"]
        bad = await controller.command("join", job=47, node=1, plays=1, events=[])
        assert bad["ok"] is False and "no running churn scenario" in bad["reason"]


async def test_a_join_starts_its_process_ahead_held_at_its_gate_and_runs_the_app_at_the_instant(
        controller: FakeController, run_daemon, tmp_path) -> None:
    code = 'print("up " .. string.format("%.3f", misc.time()))\nevents.run(function() events.sleep(10) end)'
    events = {"1": [[1.5, "join", False]]}
    async with run_daemon():
        start = await churn_deploy(controller, 48, code, events, nodes=1, end=3.0)
        gate = tmp_path / "work" / "job-48" / "node-1" / "go"
        # JOIN_PRESTART: the process is up, waiting at its FIFO, long before 1.5 s; not reported yet
        await controller.wait_until(lambda: gate.is_fifo(), timeout=2)
        assert controller.states(48, 1) == [] and controller.lines(48, 1) == []
        running = await controller.wait_until(lambda: controller.states(48, 1), timeout=3)
        assert running[0]["state"] == "RUNNING" and abs(running[0]["churn"]["t"] - 1.5) < 0.05, running
        line = await controller.wait_until(lambda: controller.lines(48, 1), timeout=2)
        app_started = float(line[0]["text"].split()[1])
        assert start["epoch"] + 1.5 - 0.01 <= app_started, (app_started - start["epoch"])  # not before its join
        assert not gate.exists()  # the runtime removes it: the app never sees it


async def test_a_job_stopped_while_a_join_is_held_reports_no_join(controller: FakeController, run_daemon) -> None:
    events = {"1": [[1.5, "join", False]]}
    async with run_daemon():
        await churn_deploy(controller, 49, LOGGER, events, nodes=1, end=3.0)
        await asyncio.sleep(0.5)  # its process is held at its gate
        assert (await controller.command("stop", job=49))["ok"]
        final = await controller.wait_final(49, 1, timeout=3)
        assert final["state"] == "KILLED" and "churn" not in final, final
        assert controller.lines(49, 1) == []  # the app never ran
        await asyncio.sleep(1.5)
        assert [m["state"] for m in controller.states(49, 1)] == ["KILLED"]


async def test_a_rejoin_right_after_a_slow_graceful_leave_waits_for_the_old_session(
        controller: FakeController, run_daemon) -> None:
    code = ('print("up")\nevents.on_leave(function() events.sleep(0.6) print("bye") end)\n'
            'events.run(function() while true do events.sleep(0.1) end end)')
    events = {"1": [[0, "join", False], [0.5, "leave", True], [0.7, "join", False]]}
    async with run_daemon():
        await churn_deploy(controller, 50, code, events, nodes=1, end=3.0)
        await controller.wait_until(lambda: len([m for m in controller.states(50, 1) if m["state"] == "RUNNING"]) == 2,
                                    timeout=4)
        states = [(m["state"], m.get("churn", {}).get("event")) for m in controller.states(50, 1)]
        assert states == [("RUNNING", "join"), ("LEFT", "leave"), ("RUNNING", "join")], states
        await controller.wait_until(lambda: [ln["text"] for ln in controller.lines(50, 1)].count("up") == 2, timeout=2)
        texts = [ln["text"] for ln in controller.lines(50, 1)]
        assert texts.index("bye") < len(texts) - 1 and texts.count("up") == 2, texts  # in order, both sessions
