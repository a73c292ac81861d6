"""The controller's side of the node relay (issue 24, daemons/relay.py): a relay-capable daemon's
welcome carries its link token, placement joins two daemons that cannot reach each other when
both keep a relay link, and their `list` frames carry signed tickets and the peers to relay to.
Signatures are checked with splayd's own relay code (daemon/splayd/relay.py, loaded from the
file), the one the relay process runs."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.db import database_sync_to_async as db
from django.test import override_settings
from django.utils import timezone

from daemons.models import Reachability
from daemons.tests.factories import daemon_make, splayd_module
from daemons.tests.wsdaemon import FakeSplayd
from jobs.models import Job
from jobs.tasks import job_schedule
from jobs.tests.factories import in_worker_thread, job_make

SECRET = "relay-test-secret"
RELAY = override_settings(SPLAYLAB_RELAY_URL="ws://10.77.0.1:9770/", SPLAYLAB_RELAY_SECRET=SECRET)


async def _daemon(name: str, version: int, base: int) -> tuple[FakeSplayd, Any]:
    d, key = await db(daemon_make)(name, max_instances=2, ports=(base, base + 99))
    s = FakeSplayd(key, name=name, max_instances=2, ports=(base, base + 99))
    s.hello["version"] = version
    await s.connect()
    return s, d


@RELAY
@pytest.mark.django_db(transaction=True)
async def test_a_relay_capable_daemon_is_welcomed_with_a_link_token_the_relay_accepts() -> None:
    relay = splayd_module("relay")
    s3, d3 = await _daemon("lab-3", 3, 20000)
    s2, _ = await _daemon("lab-2", 2, 21000)
    block = s3.welcome["relay"]
    assert block["url"] == "ws://10.77.0.1:9770/" and block["daemon"] == d3.id
    assert block["token"] == relay.link_token(SECRET.encode(), d3.id, block["expires"])
    assert "relay" not in s2.welcome  # protocol 2: no relay link
    for s in (s2, s3):
        await s.close()


@pytest.mark.django_db(transaction=True)
async def test_without_a_relay_configured_nothing_is_handed_out() -> None:
    s3, _ = await _daemon("lab-3", 3, 20000)
    assert "relay" not in s3.welcome
    await s3.close()


def _none(src, dst) -> None:
    Reachability.objects.create(src=src, dst=dst, status=Reachability.Status.NONE, error="TCP: no answer within 2 s",
                                address=f"{dst.ip}:40000", measured_at=timezone.now())


async def _link_up(s: FakeSplayd, d: Any) -> None:
    """The daemon's heartbeat says its relay link is up; wait until the controller stored it."""
    await s.send({"type": "heartbeat", "running": 0, "t": 1.0, "relay": True})
    await s.expect("ack")
    for _ in range(100):
        await db(d.refresh_from_db)()
        if d.relay_up:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("relay_up never stored")


@RELAY
@pytest.mark.django_db(transaction=True)
async def test_without_their_links_up_such_daemons_are_kept_apart(student) -> None:
    (s1, d1), (s2, d2) = await _daemon("nat-1", 3, 20000), await _daemon("nat-2", 3, 21000)
    await db(_none)(d1, d2)
    job = await db(job_make)(student, nodes=4)
    await asyncio.wait_for(in_worker_thread(job_schedule, job.id), 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.NO_RESOURCES and "nat-1 cannot reach nat-2" in job.reason, job.reason
    for s in (s1, s2):
        await s.close()


@RELAY
@pytest.mark.django_db(transaction=True)
async def test_daemons_that_cannot_reach_each_other_share_a_job_through_the_relay(student) -> None:
    relay = splayd_module("relay")
    (s1, d1), (s2, d2) = await _daemon("nat-1", 3, 20000), await _daemon("nat-2", 3, 21000)
    await db(_none)(d1, d2)
    await db(_none)(d2, d1)
    await _link_up(s1, d1)
    await _link_up(s2, d2)
    job = await db(job_make)(student, nodes=4)  # 2 slots each: needs both
    task = in_worker_thread(job_schedule, job.id)
    r1, r2 = await s1.expect("register"), await s2.expect("register")
    await s1.reply(r1, ports=[20000, 20001])
    await s2.reply(r2, ports=[21000, 21001])
    l1, l2 = await s1.expect("list"), await s2.expect("list")
    for frame, mine, theirs, d in ((l1, [20000, 20001], [21000, 21001], d1), (l2, [21000, 21001], [20000, 20001], d2)):
        block = frame["relay"]
        assert sorted(int(a.rsplit(":", 1)[1]) for a in block["addrs"]) == mine
        assert block["mac"] == relay.ticket_mac(SECRET.encode(), d.id, job.id, block["addrs"])
        assert sorted(p["port"] for p in block["peers"]) == theirs
    await s1.reply(l1)
    await s2.reply(l2)
    await s1.reply(await s1.expect("start"))
    await s2.reply(await s2.expect("start"))
    await asyncio.wait_for(task, 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.RUNNING
    for s in (s1, s2):
        await s.close()
