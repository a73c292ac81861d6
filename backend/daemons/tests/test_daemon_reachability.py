"""Who can reach whom (issue 24): a hello's probe port is kept and queues a probe; the controller
sends each daemon a `probe` naming the others through their consumers, and stores each answer
per ordered pair; the dashboard's API lists them. The daemons here are FakeSplayd sockets whose
probing is splayd's own code (daemon/splayd/reach.py, loaded from the file) over real sockets:
two daemons with real listeners, one advertising a port where nothing listens."""
from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest
from channels.db import database_sync_to_async as db

from daemons import reachability as reach_service
from daemons import tasks
from daemons.models import Daemon, Reachability
from daemons.reachability import Target, probe_plan, reachability_store
from daemons.tests.factories import daemon_make, splayd_module
from daemons.tests.wsdaemon import FakeSplayd
from jobs.tests.factories import in_worker_thread


@pytest.fixture(autouse=True)
def no_round_pending() -> Any:
    """The hellos' probe round lives in Redis: none left over from another test."""
    r = reach_service._redis()
    r.delete(reach_service.HELLOS_KEY, reach_service.ROUND_KEY)
    yield
    r.delete(reach_service.HELLOS_KEY, reach_service.ROUND_KEY)


def test_the_plan_covers_every_ordered_pair_or_those_asked() -> None:
    a, b, c = (Target(i, f"lab-{i}", "10.0.0.%d" % i, 40000 + i) for i in (1, 2, 3))
    everything = probe_plan([a, b, c])
    # each daemon tries itself too: its own nodes reach each other at its advertised address
    assert {src: [t.daemon_id for t in ts] for src, ts in everything.items()} == {
        1: [1, 2, 3], 2: [1, 2, 3], 3: [1, 2, 3]}
    involving = probe_plan([a, b, c], involving={3})  # 3 said hello: it tries all, all try it
    assert {src: [t.daemon_id for t in ts] for src, ts in involving.items()} == {1: [3], 2: [3], 3: [1, 2, 3]}
    among = probe_plan([a, b, c], among={1, 2})  # an instructor's two daemons
    assert {src: [t.daemon_id for t in ts] for src, ts in among.items()} == {1: [1, 2], 2: [1, 2]}


@pytest.mark.django_db
def test_a_reply_is_stored_per_pair_and_a_new_measure_replaces_the_old() -> None:
    src, _ = daemon_make("lab-1")
    dst, _ = daemon_make("lab-2")
    other, _ = daemon_make("lab-3")
    target = Target(dst.id, "lab-2", "192.0.2.7", 40123)
    stored = reachability_store(src_id=src.id, targets=[target], results=[
        {"daemon": dst.id, "tcp": False, "tcp_ms": None, "tcp_error": "no answer within 2 s", "udp": False,
         "udp_error": "no answer within 2 s"},
        {"daemon": other.id, "tcp": True, "tcp_ms": 1.0, "tcp_error": "", "udp": True, "udp_error": ""},  # not asked
        "garbage"])
    assert stored == 1
    row = Reachability.objects.get()
    assert (row.src_id, row.dst_id, row.status, row.tcp, row.udp, row.tcp_ms, row.error, row.address) == (
        src.id, dst.id, "none", False, False, None, "TCP: no answer within 2 s", "192.0.2.7:40123")
    first = row.measured_at
    reachability_store(src_id=src.id, targets=[target], results=[
        {"daemon": dst.id, "tcp": True, "tcp_ms": 0.7, "tcp_error": "", "udp": False,
         "udp_error": "no answer within 2 s"}])
    row = Reachability.objects.get()
    assert (row.status, row.tcp, row.udp, row.tcp_ms, row.error) == ("direct", True, False, 0.7,
                                                                    "UDP: no answer within 2 s")
    assert row.measured_at > first


class ProbingSplayd(FakeSplayd):
    """A test daemon whose `probe` commands are answered by splayd's own prober."""

    def __init__(self, key: str, name: str, probe_port: int, reach: Any) -> None:
        super().__init__(key, name=name)
        self.hello["probe"] = {"port": probe_port}
        self.reach = reach

    async def answer_probe(self) -> dict[str, Any]:
        command = await self.expect("probe", timeout=10)
        await self.reply(command, **(await self.reach.probe_command(command)))
        return command


async def until(check: Any, timeout: float = 3) -> None:
    """The consumer queues the probe round beside its welcome: poll for it."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not await db(check)():
        assert asyncio.get_running_loop().time() < deadline, "not queued in time"
        await asyncio.sleep(0.05)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.django_db(transaction=True)
async def test_daemons_probe_each_other_through_the_controller(monkeypatch: pytest.MonkeyPatch) -> None:
    queued: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.reachability_probe_task, "apply_async",
                        lambda kwargs, countdown: queued.append(kwargs))
    reach = splayd_module("reach")
    listeners = [reach.ProbeListener("lab-a", host="127.0.0.1"), reach.ProbeListener("lab-b", host="127.0.0.1")]
    for listener in listeners:
        await listener.start()
    (a, ka), (b, kb), (c, kc) = [await db(daemon_make)(n) for n in ("lab-a", "lab-b", "lab-c")]
    splayds = [ProbingSplayd(ka, "lab-a", listeners[0].port, reach), ProbingSplayd(kb, "lab-b", listeners[1].port, reach),
               ProbingSplayd(kc, "lab-c", closed_port(), reach)]  # behind a router: nothing answers at its address
    try:
        for s in splayds:
            await s.connect()
        # Each hello keeps the port and joins one probe round of the pairs its daemon is in.
        await until(lambda: reach_service._redis().scard(reach_service.HELLOS_KEY) == 3)
        assert queued == [{"hellos": True}]
        assert await db(reach_service.hellos_take)() == [a.id, b.id, c.id]
        assert reach_service.reachability_probe_soon(involving=[a.id, b.id, c.id])  # taken: the next hello queues
        assert queued == [{"hellos": True}, {"hellos": True}]
        assert await db(lambda: sorted(Daemon.objects.values_list("name", "probe_port")))() == [
            ("lab-a", listeners[0].port), ("lab-b", listeners[1].port), ("lab-c", splayds[2].hello["probe"]["port"])]
        probing = in_worker_thread(lambda: tasks.reachability_probe_task(hellos=True))  # as the Celery worker would
        commands = await asyncio.gather(*(s.answer_probe() for s in splayds))
        assert await asyncio.wait_for(probing, 10) == 9
    finally:
        for s in splayds:
            await s.close()
        for listener in listeners:
            await listener.stop()
    assert [sorted(t["name"] for t in cmd["targets"]) for cmd in commands] == [["lab-a", "lab-b", "lab-c"]] * 3
    rows = await db(lambda: {(r.src.name, r.dst.name): r for r in Reachability.objects.select_related("src", "dst")})()
    assert {pair: r.status for pair, r in rows.items()} == {
        ("lab-a", "lab-b"): "direct", ("lab-b", "lab-a"): "direct", ("lab-c", "lab-a"): "direct",
        ("lab-c", "lab-b"): "direct", ("lab-a", "lab-c"): "none", ("lab-b", "lab-c"): "none",
        ("lab-a", "lab-a"): "direct", ("lab-b", "lab-b"): "direct", ("lab-c", "lab-c"): "none"}
    assert rows[("lab-a", "lab-b")].udp and rows[("lab-a", "lab-b")].tcp_ms is not None
    assert rows[("lab-a", "lab-c")].error == "TCP: Connection refused"


@pytest.mark.django_db
def test_the_dashboard_lists_the_pairs_and_asks_for_a_new_measure(teacher: Any, client: Any,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    queued: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.reachability_probe_task, "apply_async",
                        lambda kwargs, countdown: queued.append(kwargs))
    a, _ = daemon_make("lab-1")
    b, _ = daemon_make("lab-2")
    reachability_store(src_id=a.id, targets=[Target(b.id, "lab-2", "127.0.0.1", 40001)], results=[
        {"daemon": b.id, "tcp": False, "tcp_ms": None, "tcp_error": "no answer within 2 s", "udp": False,
         "udp_error": "no answer within 2 s"}])
    client.force_login(teacher)
    [row] = client.get("/api/daemons/reachability/").json()
    assert {k: row[k] for k in ("src", "src_name", "dst", "dst_name", "status", "tcp", "udp", "error", "address")} == {
        "src": a.id, "src_name": "lab-1", "dst": b.id, "dst_name": "lab-2", "status": "none", "tcp": False,
        "udp": False, "error": "TCP: no answer within 2 s", "address": "127.0.0.1:40001"}
    answer = client.post("/api/daemons/reachability/")
    assert (answer.status_code, answer.json()) == (202, {"queued": True})
    assert queued == [{"among": [a.id, b.id]}]


@pytest.mark.django_db(transaction=True)
async def test_a_hello_without_a_listener_forgets_what_was_measured() -> None:
    """A daemon back without its listener (an older splayd): its old measures would keep
    placing jobs by a network it may no longer be on."""
    (a, ka), (b, _) = [await db(daemon_make)(n) for n in ("lab-a", "lab-b")]
    await db(reachability_store)(src_id=b.id, targets=[Target(a.id, "lab-a", "10.0.0.1", 40000)], results=[
        {"daemon": a.id, "tcp": False, "tcp_ms": None, "tcp_error": "no answer within 2 s", "udp": False,
         "udp_error": ""}])
    splayd = FakeSplayd(ka, name="lab-a")  # no "probe" in its hello
    await splayd.connect()
    await splayd.close()
    assert await db(Reachability.objects.count)() == 0
