"""DaemonConsumer against bad input and outages (issue 20): node text is data, a frame that
cannot be stored is acked and recorded, a link without hello is closed, a daemon's address is
checked against its connection, and a resumed session judges unlisted instances only after
the daemon's journal is replayed."""
import asyncio
import time

import pytest
from channels.db import database_sync_to_async as db
from channels.testing import WebsocketCommunicator

from daemons import frames
from daemons.addresses import AddressRefused, hello_address
from daemons.models import BlacklistEntry, Daemon
from daemons.tests.factories import daemon_make
from daemons.tests.wsdaemon import FakeSplayd
from jobs.models import Job, JobInstance
from jobs.tests.factories import instance_make, job_make
from logs.models import LogLine
from splaylab.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


def _line(seq: int, text: str, node: int = 1) -> dict:
    return {"node": node, "seq": seq, "t": time.time(), "level": "print", "text": text}


async def _acked(splayd: FakeSplayd) -> int:
    """The controller's ack once every frame sent so far is processed (a heartbeat's echo)."""
    mark = time.monotonic()
    await splayd.send({"type": "heartbeat", "running": 1, "t": mark})
    while True:
        ack = await splayd.expect("ack")
        if ack.get("t") == mark:
            return ack["seq"]


async def _running_job(student, nodes: int = 1):
    daemon, key = await db(daemon_make)(session="s-1")
    job = await db(job_make)(student, state=Job.State.RUNNING, nodes=nodes)
    insts = [await db(instance_make)(job, k, daemon) for k in range(1, nodes + 1)]
    return daemon, key, job, insts


def _poison_breaks_ingest(monkeypatch) -> None:
    """The ingest fails on a batch with a line saying "poison" (a mock: no real frame can make
    it fail once text is escaped; it stands for any future bug in the ingest)."""
    real_ingest = frames.frame_ingest

    def broken_ingest(**kwargs):
        if any("poison" in str(ln.get("text")) for ln in kwargs["raw_lines"]):
            raise ValueError("cannot adapt this value")
        return real_ingest(**kwargs)

    monkeypatch.setattr(frames, "frame_ingest", broken_ingest)


async def test_nul_and_escaped_bytes_are_stored_and_the_frame_acked(student) -> None:
    daemon, key, job, _ = await _running_job(student)
    splayd = FakeSplayd(key, session="s-1", instances=[{"job": job.id, "node": 1, "state": "RUNNING"}])
    await splayd.connect()
    await splayd.send({"type": "log", "job": job.id, "o": 1,
                       "lines": [_line(1, "a\x00b"), _line(2, "raw \\xff\\xfe"), _line(3, "z" * 100_000)]})
    assert await _acked(splayd) == 1
    rows = await db(lambda: list(LogLine.objects.filter(job=job).order_by("seq").values_list("text", flat=True)))()
    assert rows[:2] == ["a\\x00b", "raw \\xff\\xfe"]
    assert rows[2].endswith(" [line truncated at 8192 characters]")
    await db(daemon.refresh_from_db)()
    assert daemon.state == Daemon.State.ONLINE
    await splayd.close()


async def test_a_frame_that_cannot_be_stored_is_acked_and_recorded_on_its_nodes(student, monkeypatch) -> None:
    """A failure no input can cause today stands for any future bug in the ingest (a mock, as
    no real frame can make it fail once text is escaped): the journal must move on."""
    daemon, key, job, _ = await _running_job(student, nodes=2)
    _poison_breaks_ingest(monkeypatch)
    listed = [{"job": job.id, "node": k, "state": "RUNNING"} for k in (1, 2)]
    splayd = FakeSplayd(key, session="s-1", instances=listed)
    await splayd.connect()
    await splayd.send({"type": "log", "job": job.id, "o": 1,
                       "lines": [_line(5, "poison"), _line(6, "x"), _line(3, "y", node=2)]})
    await splayd.send({"type": "log", "job": job.id, "o": 2, "lines": [_line(7, "next batch")]})
    assert await _acked(splayd) == 2
    rows = await db(lambda: list(LogLine.objects.filter(job=job).order_by("node", "seq")
                                 .values_list("node", "seq", "level", "text")))()
    assert rows == [
        (1, 5, "error", "the controller could not store 2 lines of this node (seq 5-6): "
                        "ValueError: cannot adapt this value"),
        (1, 7, "print", "next batch"),
        (2, 3, "error", "the controller could not store 1 line of this node (seq 3-3): "
                        "ValueError: cannot adapt this value")]
    await splayd.close()


async def test_a_logs_frame_stores_each_jobs_batch_once_and_one_unstorable_batch_costs_no_other(student, monkeypatch) -> None:
    """A tick's lines of several jobs come as one `logs` frame (splayd.outbox): every job's
    lines stored, a resent frame adds nothing, and a batch that cannot be stored (a mock, as in
    the test above) is recorded on its nodes while the other jobs' batches are kept."""
    daemon, key, job, _ = await _running_job(student)
    other = await db(job_make)(student, state=Job.State.RUNNING, nodes=1)
    await db(instance_make)(other, 1, daemon)
    _poison_breaks_ingest(monkeypatch)
    listed = [{"job": j.id, "node": 1, "state": "RUNNING"} for j in (job, other)]
    splayd = FakeSplayd(key, session="s-1", instances=listed)
    await splayd.connect()
    frame = {"type": "logs", "o": 1, "batches": [{"job": job.id, "lines": [_line(1, "a"), _line(2, "b")]},
                                                 {"job": other.id, "lines": [_line(1, "c")]}]}
    await splayd.send(frame)
    await splayd.send(frame)  # resent after a reconnection: skipped
    await splayd.send({"type": "logs", "o": 2, "batches": [{"job": job.id, "lines": [_line(3, "poison")]},
                                                          {"job": other.id, "lines": [_line(2, "d")]}]})
    assert await _acked(splayd) == 2
    texts = await db(lambda: {j.id: list(LogLine.objects.filter(job=j).order_by("seq").values_list("level", "text"))
                              for j in (job, other)})()
    assert texts[other.id] == [("print", "c"), ("print", "d")]
    assert texts[job.id] == [("print", "a"), ("print", "b"),
                             ("error", "the controller could not store 1 line of this node (seq 3-3): "
                                       "ValueError: cannot adapt this value")]
    await splayd.close()


async def test_an_instance_reason_with_nul_ends_the_instance(student) -> None:
    daemon, key, job, [inst] = await _running_job(student)
    splayd = FakeSplayd(key, session="s-1", instances=[{"job": job.id, "node": 1, "state": "RUNNING"}])
    await splayd.connect()
    await splayd.send({"type": "instance", "job": job.id, "node": 1, "o": 1, "state": "FAILED",
                       "exit_code": 2**40, "reason": "runtime error: app.lua:1: a\x00b"})
    assert await _acked(splayd) == 1
    await db(inst.refresh_from_db)()
    assert (inst.state, inst.exit_code, inst.exit_reason) == ("FAILED", None, "runtime error: app.lua:1: a\\x00b")
    await splayd.close()


async def test_a_connection_without_hello_is_closed_after_the_timeout(settings) -> None:
    settings.SPLAYLAB_DAEMON_HELLO_TIMEOUT = 0.5
    ws = WebsocketCommunicator(application, "/ws/daemon/")
    assert (await ws.connect())[0]
    started = time.monotonic()
    assert await ws.receive_output(timeout=5) == {"type": "websocket.close", "code": 4008}
    assert 0.4 < time.monotonic() - started < 3


async def test_a_daemon_that_said_hello_is_not_closed_by_the_hello_timeout(settings) -> None:
    settings.SPLAYLAB_DAEMON_HELLO_TIMEOUT = 0.5
    _, key = await db(daemon_make)()
    splayd = FakeSplayd(key)
    await splayd.connect()
    await asyncio.sleep(1)
    assert await _acked(splayd) == 0  # still served
    await splayd.close()


def _hello_from(key: str, client: str, ip: str) -> FakeSplayd:
    splayd = FakeSplayd(key)
    splayd.hello["ip"] = ip
    splayd.ws.scope["client"] = (client, 40000)
    return splayd


async def test_a_remote_daemon_gets_its_connections_address_not_its_claim(settings) -> None:
    daemon, key = await db(daemon_make)()
    welcome = await _hello_from(key, "192.0.2.10", "198.51.100.7").connect()
    assert welcome["type"] == "welcome"
    await db(daemon.refresh_from_db)()
    assert daemon.ip == "192.0.2.10"


async def test_a_daemon_claiming_a_controller_address_from_elsewhere_is_refused(settings, monkeypatch) -> None:
    from daemons import addresses

    monkeypatch.setattr(addresses, "controller_addresses", lambda: ("10.0.0.1",))
    settings.SPLAYLAB_DAEMON_TRUSTED_PEERS = ["203.0.113.0/24"]  # a lab's NAT gateway
    _, key = await db(daemon_make)()
    splayd = _hello_from(key, "203.0.113.5", "10.0.0.1")
    assert await splayd.connect() == {
        "type": "refused", "reason": "hello ip 10.0.0.1 is one of the controller's addresses, "
                                     "but this daemon connects from 203.0.113.5"}
    # behind the same gateway, a lab address of its own is taken
    welcome = await _hello_from(key, "203.0.113.5", "10.0.0.42").connect()
    assert welcome["type"] == "welcome"


def test_address_rule(settings, monkeypatch) -> None:
    from daemons import addresses

    monkeypatch.setattr(addresses, "controller_addresses", lambda: ("192.0.2.1",))
    settings.SPLAYLAB_BLACKLIST = ["198.51.100.0/24"]
    settings.SPLAYLAB_DAEMON_TRUSTED_PEERS = []
    BlacklistEntry.objects.create(address="203.0.113.9")
    # a daemon on the controller's host (loopback peer) or with no known peer: its claim
    assert hello_address(claimed="127.0.0.1", peer="127.0.0.1").address == "127.0.0.1"
    assert hello_address(claimed="10.1.1.1", peer="127.0.0.1").address == "10.1.1.1"
    assert hello_address(claimed="192.0.2.1", peer="127.0.0.1").address == "192.0.2.1"
    assert hello_address(claimed=None, peer="::ffff:10.2.2.2").address == "10.2.2.2"
    # the claim equals the connection, or the connection wins
    assert hello_address(claimed="10.3.3.3", peer="10.3.3.3").address == "10.3.3.3"
    assert hello_address(claimed="10.3.3.4", peer="10.3.3.3").address == "10.3.3.3"
    assert hello_address(claimed="192.0.2.1", peer="10.3.3.3").address == "10.3.3.3"
    for claimed, peer, why in [
            ("lab-1.local", "10.3.3.3", "hello ip 'lab-1.local' is not an IP address"),
            (42, "10.3.3.3", "hello ip 42 is not an IP address"),
            ("0.0.0.0", "10.3.3.3", "hello ip 0.0.0.0 is not the address of one host"),
            ("198.51.100.4", "127.0.0.1", "daemon address 198.51.100.4 is blacklisted (198.51.100.0/24): "
                                          "no node may reach it"),
            ("10.3.3.3", "203.0.113.9", "daemon address 203.0.113.9 is blacklisted (203.0.113.9): "
                                        "no node may reach it")]:
        with pytest.raises(AddressRefused) as refused:
            hello_address(claimed=claimed, peer=peer)
        assert str(refused.value) == why


async def test_unlisted_instances_are_judged_after_the_journal_replay(student) -> None:
    """The freeze of issue 20: nodes 1 and 2 ended while the link was down, so the daemon's
    hello lists only node 3; its journal (frames 1-3) says how 1 ended, nothing about 2."""
    daemon, key, job, [n1, n2, n3] = await _running_job(student, nodes=3)
    splayd = FakeSplayd(key, session="s-1", instances=[{"job": job.id, "node": 3, "state": "RUNNING"}])
    splayd.hello["outbox_last"] = 3
    await splayd.connect()
    states = await db(lambda: list(JobInstance.objects.filter(job=job).order_by("node").values_list("state", flat=True)))()
    assert states == ["RUNNING"] * 3  # nothing judged before the replay
    await splayd.send({"type": "log", "job": job.id, "o": 1, "lines": [_line(1, "last words")]})
    await splayd.send({"type": "instance", "job": job.id, "node": 1, "o": 2, "state": "ENDED",
                       "exit_code": 0, "reason": "ended normally"})
    await splayd.send({"type": "log", "job": job.id, "o": 3, "lines": [_line(1, "node 3 goes on", node=3)]})
    assert await _acked(splayd) == 3
    for inst in (n1, n2, n3):
        await db(inst.refresh_from_db)()
    assert (n1.state, n1.exit_reason) == ("ENDED", "ended normally")
    assert (n2.state, n2.exit_reason) == ("LOST", "daemon lab-1 no longer runs it after reconnecting")
    assert n3.state == "RUNNING"
    await splayd.close()


async def test_a_journal_with_nothing_to_replay_is_judged_at_hello(student) -> None:
    daemon, key, job, [n1] = await _running_job(student)
    await db(lambda: Daemon.objects.filter(id=daemon.id).update(acked_seq=9))()
    splayd = FakeSplayd(key, session="s-1")
    splayd.hello["outbox_last"] = 9  # everything it holds was processed already
    await splayd.connect()
    await db(n1.refresh_from_db)()
    assert n1.state == "LOST"
    await db(job.refresh_from_db)()
    assert job.state == Job.State.FAILED
    await splayd.close()
