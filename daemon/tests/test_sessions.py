"""Sessions that survive faults (docs/architecture.md, "Sessions"): the daemon watches the
link with heartbeats and acks, journals numbered frames on disk and resends what the
controller did not process, so nothing is lost and (with the controller's dedup) nothing is
doubled. The controller here is tests/utils.py FakeController, which applies each numbered
frame once like the real one (tests/multihost/ covers the real controller)."""
from __future__ import annotations

import asyncio

from .utils import FakeController

PRINTER = 'for i = 1, 600 do print(i); if i % 20 == 0 then events.sleep(0.02) end end'


async def test_a_controller_that_stops_answering_is_dropped_and_the_session_resumed(
    controller: FakeController, run_daemon
) -> None:
    async with run_daemon() as server:
        session = await controller.wait_until(lambda: server.connection.session)
        controller.silent = True  # no more acks: a hung controller or a dead NAT mapping
        await controller.wait_until(lambda: len(controller.hellos) == 2, timeout=5)
        controller.silent = False
        assert controller.hellos[1]["session"] == session
        await controller.wait_until(lambda: server.connection.connects == 2)


async def test_frames_the_controller_lost_in_a_crash_are_resent_once_in_order(
    controller: FakeController, run_daemon
) -> None:
    async with run_daemon() as server:
        await controller.deploy(4, PRINTER, nodes=2, duration=20)
        await controller.wait_until(lambda: len(controller.lines(4)) >= 300)
        await controller.crash()  # forgets what came after its last ack, drops the socket
        await controller.wait_until(lambda: len(controller.hellos) == 2, timeout=8)
        for node in (1, 2):
            await controller.wait_final(4, node, timeout=10)
        for node in (1, 2):
            printed = [int(ln["text"]) for ln in controller.lines(4, node) if ln["level"] == "print"]
            assert printed == list(range(1, 601))  # every line exactly once, in order
        assert [m["o"] for m in controller.messages if "o" in m] == \
            sorted({m["o"] for m in controller.messages if "o" in m})
        assert server.outbox.pending() == 0


async def test_acked_frames_leave_the_disk_journal(controller: FakeController, run_daemon) -> None:
    async with run_daemon() as server:
        await controller.deploy(5, PRINTER, nodes=1, duration=20)
        await controller.wait_final(5, 1, timeout=10)
        last = max(m["o"] for m in controller.messages if "o" in m)
        await controller.wait_until(lambda: server.outbox.acked >= last, timeout=5)
        assert server.outbox.journal.segments == []
        assert not list((server.config.work_dir / ".outbox").glob("seg-*.jsonl"))


async def test_lines_printed_during_an_outage_arrive_after_it(
    controller: FakeController, run_daemon
) -> None:
    code = 'for i = 1, 400 do print(i); events.sleep(0.01) end'
    async with run_daemon() as server:
        await controller.deploy(6, code, nodes=1, duration=30)
        await controller.wait_until(lambda: len(controller.lines(6)) >= 20)
        port = controller.port
        await controller.stop()
        await asyncio.sleep(2.0)  # the node keeps printing into the journal
        assert server.outbox.pending() > 0
        await controller.start(port)
        final = await controller.wait_final(6, 1, timeout=15)
        assert final["state"] == "ENDED"
        printed = [int(ln["text"]) for ln in controller.lines(6, 1) if ln["level"] == "print"]
        assert printed == list(range(1, 401))
