"""Placement that knows who reaches whom (issue 24): a job never spans two daemons measured
unable to reach each other (either way); when the daemons that can are too few,
NO_RESOURCES names the pairs that cannot."""
import asyncio

import pytest
from channels.db import database_sync_to_async as db
from django.utils import timezone

from daemons.models import Reachability
from daemons.tests.factories import daemon_make
from daemons.tests.wsdaemon import FakeSplayd
from jobs.models import Job
from jobs.selection import reachable_group, unreachable_text
from jobs.tasks import job_schedule
from jobs.tests.factories import in_worker_thread, job_make


def cut(*pairs: tuple[int, int]) -> set[frozenset[int]]:
    return {frozenset(p) for p in pairs}


def test_without_a_failure_every_daemon_with_free_slots_is_kept() -> None:
    assert reachable_group({1: 4, 2: 0, 3: 2}, [3, 1, 2], set()) == [3, 1]
    assert reachable_group({1: 4, 3: 2}, [1, 3], cut((1, 5))) == [1, 3]  # 5 is not a candidate


def test_public_daemons_stay_together_and_natted_ones_stand_alone() -> None:
    # 1, 2 public (reach each other); 3, 4 behind routers: nobody reaches them, so every pair with one is cut
    failures = cut((1, 3), (2, 3), (1, 4), (2, 4), (3, 4))
    assert reachable_group({1: 4, 2: 4, 3: 4, 4: 4}, [1, 2, 3, 4], failures) == [1, 2]
    # a NATed daemon alone wins when it has more than the others together
    assert reachable_group({1: 2, 2: 2, 3: 9, 4: 1}, [1, 2, 3, 4], failures) == [3]
    # ties: the earlier in order (the faster responders)
    assert reachable_group({1: 4, 3: 4}, [3, 1], cut((1, 3))) == [3]


def test_the_unreachable_pairs_are_named_up_to_a_few() -> None:
    pairs = [(f"lab-{k}", "nat-1", "TCP: no answer within 2 s") for k in range(8)]
    text = unreachable_text(pairs)
    assert text.startswith("lab-0 cannot reach nat-1 (TCP: no answer within 2 s); lab-1 cannot reach nat-1 (")
    assert text.endswith("lab-5 cannot reach nat-1 (TCP: no answer within 2 s); and 2 more pairs")
    assert unreachable_text([("a", "b", "")]) == "a cannot reach b"


async def _three_daemons(versions: tuple[int, int, int] = (1, 1, 1)) -> tuple[list[FakeSplayd], list]:
    """Protocol 1 by default: daemons from before the same-machine shortcut."""
    splayds, daemons = [], []
    for k in (1, 2, 3):
        ports = (20000 + 1000 * k, 20099 + 1000 * k)
        d, key = await db(daemon_make)(f"lab-{k}", max_instances=4, ports=ports)
        s = FakeSplayd(key, name=f"lab-{k}", max_instances=4, ports=ports)
        s.hello["version"] = versions[k - 1]
        await s.connect()
        splayds.append(s)
        daemons.append(d)
    return splayds, daemons


def _unreachable(src, dst, why: str) -> None:
    Reachability.objects.create(src=src, dst=dst, status=Reachability.Status.NONE, error=why,
                                address=f"{dst.ip}:40000", measured_at=timezone.now())


@pytest.mark.django_db(transaction=True)
async def test_a_job_is_placed_on_daemons_that_reach_each_other(student) -> None:
    (s1, s2, s3), (d1, d2, d3) = await _three_daemons()
    await db(_unreachable)(d3, d1, "TCP: no answer within 2 s")  # one way is enough to keep them apart...
    await db(Reachability.objects.create)(src=d1, dst=d2, status=Reachability.Status.DIRECT, tcp=True, udp=True,
                                          tcp_ms=0.5, measured_at=timezone.now())
    job = await db(job_make)(student, nodes=8)  # ... so lab-1 and lab-2 must hold all 8
    task = in_worker_thread(job_schedule, job.id)
    r1, r2 = await s1.expect("register"), await s2.expect("register")
    assert (r1["count"], r2["count"]) == (4, 4)
    await s1.reply(r1, ports=[21000, 21001, 21002, 21003])
    await s2.reply(r2, ports=[22000, 22001, 22002, 22003])
    l1, l2 = await s1.expect("list"), await s2.expect("list")
    await s1.reply(l1)
    await s2.reply(l2)
    await s1.reply(await s1.expect("start"))
    await s2.reply(await s2.expect("start"))
    await asyncio.wait_for(task, 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.RUNNING
    assert await s3.ws.receive_nothing(0.3)  # never asked
    for s in (s1, s2, s3):
        await s.close()


@pytest.mark.django_db(transaction=True)
async def test_too_few_daemons_that_reach_each_other_is_no_resources_naming_the_pairs(student) -> None:
    (s1, s2, s3), (d1, d2, d3) = await _three_daemons()
    await db(_unreachable)(d1, d3, "TCP: no answer within 2 s")
    await db(_unreachable)(d3, d2, "TCP: Connection refused")
    job = await db(job_make)(student, nodes=9)  # 12 free slots, but at most 8 on daemons that reach each other
    await asyncio.wait_for(in_worker_thread(job_schedule, job.id), 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.NO_RESOURCES
    assert job.reason == (
        "job needs 9 instances; 12 free slots on 3 online daemons, but they cannot all reach each other: "
        "lab-1 cannot reach lab-3 (TCP: no answer within 2 s); lab-3 cannot reach lab-2 (TCP: Connection refused); "
        "the most on daemons that can: 8 free slots on lab-1, lab-2")
    for s in (s1, s2, s3):
        assert await s.ws.receive_nothing(0.2)
        await s.close()


@pytest.mark.django_db(transaction=True)
async def test_a_daemon_whose_nodes_cannot_reach_each_other_takes_one_node_jobs_only(student) -> None:
    """Behind a router without port forwarding, the address the controller records is the
    router's: even the daemon's own nodes cannot connect to each other there."""
    (s1, s2, s3), (d1, d2, d3) = await _three_daemons()
    for d in (d1, d2, d3):
        await db(_unreachable)(d, d, "TCP: Connection refused")
    job = await db(job_make)(student, nodes=2)
    await asyncio.wait_for(in_worker_thread(job_schedule, job.id), 10)
    await db(job.refresh_from_db)()
    assert (job.state, job.reason) == (Job.State.NO_RESOURCES, (
        "job needs 2 instances, only 0 free slots on 0 online daemons (3 daemons excluded: "
        "their nodes cannot reach each other at their address (behind a router?))"))
    one = await db(job_make)(student, nodes=1)  # a single node reaches no one: any daemon will do
    task = in_worker_thread(job_schedule, one.id)
    register = await s1.expect("register")
    assert register["job"] == one.id
    for s in (s1, s2, s3):
        await s.close()
    await asyncio.wait_for(task, 10)


@pytest.mark.django_db(transaction=True)
async def test_a_daemon_whose_nodes_reach_each_other_over_loopback_takes_a_whole_job(student) -> None:
    """Protocol 2 (the same-machine shortcut): a NATed daemon's own nodes talk over 127.0.0.1,
    so it may hold a whole job; protocol 1 daemons in the same place still take 1-node jobs only."""
    (s1, s2, s3), (d1, d2, d3) = await _three_daemons(versions=(1, 1, 2))
    for d in (d1, d2, d3):
        await db(_unreachable)(d, d, "TCP: no answer within 2 s")
    job = await db(job_make)(student, nodes=4)
    task = in_worker_thread(job_schedule, job.id)
    register = await s3.expect("register")
    assert (register["job"], register["count"]) == (job.id, 4)
    await s3.reply(register, ports=[23000, 23001, 23002, 23003])
    listed = await s3.expect("list")
    assert [n["port"] for n in listed["nodes"]] == [23000, 23001, 23002, 23003]
    await s3.reply(listed)
    await s3.reply(await s3.expect("start"))
    await asyncio.wait_for(task, 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.RUNNING
    for s in (s1, s2):
        assert await s.ws.receive_nothing(0.2)  # protocol 1: never asked
    for s in (s1, s2, s3):
        await s.close()
