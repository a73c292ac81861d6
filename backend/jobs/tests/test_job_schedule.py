"""jobs.tasks.job_schedule against daemons driven through DaemonConsumer (SPLAY 3.1:
REGISTER a 125% superset, keep the first n slots that answer, FREE the rest, LIST, START)."""
import asyncio
import math

import pytest
from channels.db import database_sync_to_async as db
from django.utils import timezone

from daemons.tests.factories import daemon_make
from daemons.tests.wsdaemon import FakeSplayd
from jobs.models import Job, JobInstance
from jobs.selection import spread
from jobs.tasks import job_schedule
from jobs.tests.factories import in_worker_thread, instance_make, job_make

pytestmark = pytest.mark.django_db(transaction=True)


async def _two_daemons(max_instances: int = 4) -> tuple[FakeSplayd, FakeSplayd, list]:
    d1, k1 = await db(daemon_make)("lab-1", max_instances=max_instances, ports=(21000, 21099))
    d2, k2 = await db(daemon_make)("lab-2", max_instances=max_instances, ports=(22000, 22099))
    s1 = FakeSplayd(k1, name="lab-1", max_instances=max_instances, ports=(21000, 21099))
    s2 = FakeSplayd(k2, name="lab-2", max_instances=max_instances, ports=(22000, 22099))
    await s1.connect()
    await s2.connect()
    return s1, s2, [d1, d2]


async def _start_on_lab1(s1: FakeSplayd, s2: FakeSplayd, listing: dict, task, job: Job) -> None:
    """lab-1 accepts the listing and starts the job, which ends RUNNING; both daemons leave."""
    await s1.reply(listing)
    await s1.reply(await s1.expect("start"))
    await asyncio.wait_for(task, 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.RUNNING
    await s1.close()
    await s2.close()


def _instances(job: Job) -> list[tuple]:
    return list(job.instances.order_by("id").values_list("node", "daemon__name", "port", "state"))


async def _until(check, timeout: float = 5) -> None:
    """Poll the database until `check()` holds (the consumer applies frames asynchronously)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not await db(check)():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


async def test_reserves_a_superset_keeps_first_answers_frees_extras_and_starts(student, settings) -> None:
    s1, s2, _ = await _two_daemons()
    job = await db(job_make)(student, nodes=4, duration=20)
    task = in_worker_thread(job_schedule, job.id)

    r1, r2 = await s1.expect("register"), await s2.expect("register")
    assert r1["count"] + r2["count"] == math.ceil(4 * 1.25) == 5
    assert (r1["count"], r2["count"]) == (3, 2)  # spread evenly, lowest id first
    assert r1 | {"ref": None, "count": None} == {
        "type": "register", "ref": None, "job": job.id, "count": None, "max_mem": 256 * 1024 * 1024,
        "max_cpu": 60, "duration": 20, "limits": {}}
    reserved = await db(lambda: job.instances.filter(state="RESERVED", node__isnull=True).count())()
    assert reserved == 5

    await s1.reply(r1, ports=[21000, 21001, 21002])
    await asyncio.sleep(0.3)  # lab-1 answers clearly first
    await s2.reply(r2, ports=[22000, 22001])

    free = await s2.expect("free")
    assert (free["job"], free["ports"]) == (job.id, [22001])  # the 5th slot is not needed
    l1, l2 = await s1.expect("list"), await s2.expect("list")
    # each node's own loopback address (sandbox/node_address.py: both daemons are on 127.0.0.1)
    everyone = [{"ip": f"127.1.{p // 256}.{p % 256}", "port": p} for p in (21000, 21001, 21002, 22000)]
    assert l1["nodes"] == l2["nodes"] == everyone
    assert l1["instances"] == [{"node": 1, "port": 21000}, {"node": 2, "port": 21001},
                               {"node": 3, "port": 21002}]
    assert l2["instances"] == [{"node": 4, "port": 22000}]
    assert (l1["code"], l1["filename"]) == (job.code, "app.lua")
    assert (l1["list_type"], l1["list_size"], l1["limits"]) == ("head", 0, {})
    assert "trace" not in l1 and "trace" not in l2  # no message trace unless the job asks
    await s1.reply(l1)
    await s2.reply(l2)
    st1, st2 = await s1.expect("start"), await s2.expect("start")
    started_on_lab1 = timezone.now()  # lab-1 launches its nodes from here on
    assert st1["job"] == st2["job"] == job.id
    await s1.reply(st1, accepted=[1, 2, 3])
    await asyncio.sleep(0.3)  # lab-2 answers late
    await s2.reply(st2, accepted=[4])
    await asyncio.wait_for(task, 10)

    await db(job.refresh_from_db)()
    assert job.state == Job.State.RUNNING
    # t = 0 of the job's logs comes before any node could print, not after the last answer
    assert job.started_at is not None and job.started_at <= started_on_lab1
    # START only accepted them: each instance is RUNNING once its daemon reports it launched
    assert await db(_instances)(job) == [
        (1, "lab-1", 21000, "RESERVED"), (2, "lab-1", 21001, "RESERVED"),
        (3, "lab-1", 21002, "RESERVED"), (4, "lab-2", 22000, "RESERVED")]
    for daemon, node in ((s1, 1), (s1, 2), (s1, 3), (s2, 4)):
        await daemon.send({"type": "instance", "job": job.id, "node": node, "state": "RUNNING",
                           "exit_code": None, "reason": "started"})
    await _until(lambda: [s for *_, s in _instances(job)] == ["RUNNING"] * 4)
    assert await db(_instances)(job) == [
        (1, "lab-1", 21000, "RUNNING"), (2, "lab-1", 21001, "RUNNING"),
        (3, "lab-1", 21002, "RUNNING"), (4, "lab-2", 22000, "RUNNING")]
    # the job's page shows each node's address, as the node list gave it
    ips = await db(lambda: list(job.instances.order_by("node").values_list("ip", flat=True)))()
    assert ips == [n["ip"] for n in everyone]
    assert await s1.ws.receive_nothing(0.2) and await s2.ws.receive_nothing(0.2)
    await s1.close()
    await s2.close()


async def test_not_enough_free_slots_is_no_resources_with_the_numbers(student) -> None:
    s1, s2, daemons = await _two_daemons(max_instances=4)
    busy = await db(job_make)(student, state=Job.State.RUNNING, nodes=1)
    await db(instance_make)(busy, 1, daemons[0])  # one slot of lab-1 already taken
    job = await db(job_make)(student, nodes=8)
    await asyncio.wait_for(in_worker_thread(job_schedule, job.id), 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.NO_RESOURCES
    assert job.reason == "job needs 8 instances, only 7 free slots on 2 online daemons"
    assert job.ended_at is not None
    assert await s1.ws.receive_nothing(0.2) and await s2.ws.receive_nothing(0.2)
    await s1.close()
    await s2.close()


async def test_refusals_leave_too_few_slots_so_everything_is_freed(student, settings) -> None:
    s1, s2, _ = await _two_daemons(max_instances=2)
    job = await db(job_make)(student, nodes=3)
    task = in_worker_thread(job_schedule, job.id)
    r1, r2 = await s1.expect("register"), await s2.expect("register")
    assert r1["count"] + r2["count"] == 4  # min(free=4, ceil(3*1.25)=4)
    await s1.reply(r1, ports=[21000, 21001])
    await s2.ws.send_json_to({"type": "reply", "ref": r2["ref"], "ok": False,
                              "reason": "only 0 free slots"})
    free = await s1.expect("free")
    assert free["ports"] == [21000, 21001]
    await asyncio.wait_for(task, 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.NO_RESOURCES
    assert job.reason == ("job needs 3 instances, only 2 slots answered within 3 s "
                          "(lab-2: only 0 free slots)")
    assert await db(lambda: job.instances.filter(state__in=["RESERVED", "RUNNING"]).count())() == 0
    await s1.close()
    await s2.close()


async def test_silent_daemon_is_skipped_when_others_suffice(student, settings) -> None:
    settings.SPLAYLAB_REGISTER_TIMEOUT = 1.0
    s1, s2, _ = await _two_daemons(max_instances=4)
    job = await db(job_make)(student, nodes=2)
    task = in_worker_thread(job_schedule, job.id)
    r1, r2 = await s1.expect("register"), await s2.expect("register")
    assert (r1["count"], r2["count"]) == (2, 1)
    await s1.reply(r1, ports=[21000, 21001])  # enough: lab-2 is never waited for
    stop = await s2.expect("stop")  # lab-2 did not answer: release whatever it reserved
    assert stop["job"] == job.id
    listing = await s1.expect("list")
    assert [i["node"] for i in listing["instances"]] == [1, 2]
    await _start_on_lab1(s1, s2, listing, task, job)


async def test_syntax_error_fails_before_any_daemon_is_asked(student) -> None:
    s1, s2, _ = await _two_daemons()
    job = await db(job_make)(student, code="print('a')\nlocal = 3\n")
    await asyncio.wait_for(in_worker_thread(job_schedule, job.id), 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.FAILED
    assert job.reason.startswith("Lua syntax error: app.lua:2: ")
    assert job.error_line == 2
    assert await s1.ws.receive_nothing(0.3) and await s2.ws.receive_nothing(0.3)
    await s1.close()
    await s2.close()


async def test_daemon_failing_to_start_fails_its_instances(student) -> None:
    s1, s2, _ = await _two_daemons(max_instances=1)
    job = await db(job_make)(student, nodes=2)
    task = in_worker_thread(job_schedule, job.id)
    r1, r2 = await s1.expect("register"), await s2.expect("register")
    await s1.reply(r1, ports=[21000])
    await s2.reply(r2, ports=[22000])
    await s1.reply(await s1.expect("list"))
    await s2.reply(await s2.expect("list"))
    await s1.reply(await s1.expect("start"), accepted=[1])
    start2 = await s2.expect("start")
    await s2.ws.send_json_to({"type": "reply", "ref": start2["ref"], "ok": False, "reason": "fork failed"})
    await asyncio.wait_for(task, 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.RUNNING
    await s1.send({"type": "instance", "job": job.id, "node": 1, "state": "RUNNING", "exit_code": None,
                   "reason": "started"})
    await _until(lambda: _instances(job)[0][3] == "RUNNING")
    states = await db(_instances)(job)
    assert [(n, s) for n, _, _, s in states] == [(1, "RUNNING"), (2, "FAILED")]
    failed = await db(lambda: job.instances.get(node=2).exit_reason)()
    assert failed == "daemon lab-2 failed to start: fork failed"
    await s1.close()
    await s2.close()


def test_claim_is_idempotent(student) -> None:
    job = job_make(student, state=Job.State.RUNNING)
    job_schedule(job.id)  # not QUEUED: nothing happens
    job.refresh_from_db()
    assert job.state == Job.State.RUNNING


def test_spread_balances_by_free_slots() -> None:
    assert spread({1: 4, 2: 4}, 5) == {1: 3, 2: 2}
    assert spread({1: 10, 2: 1, 3: 0}, 6) == {1: 6}  # most free slots left wins
    assert spread({1: 3, 2: 5}, 4) == {1: 1, 2: 3}
    assert spread({1: 2}, 5) == {1: 2}


async def test_the_descriptor_lowers_max_mem_and_its_limits_travel_in_register_and_list(
        student, settings) -> None:
    s1, s2, _ = await _two_daemons(max_instances=4)
    descriptor = {"max_mem": 33554432, "list_type": "random", "list_size": 1,
                  "disk_max_size": 1048576, "network_max_sockets": 8, "udp_drop_ratio": 0.5,
                  "hostmasks": "%.ch"}
    job = await db(job_make)(student, nodes=1, descriptor=descriptor)
    task = in_worker_thread(job_schedule, job.id)
    r1, r2 = await s1.expect("register"), await s2.expect("register")
    limits = {"disk_max_size": 1048576, "max_sockets": 8, "udp_drop_ratio": 0.5}
    assert (r1["max_mem"], r1["limits"]) == (33554432, limits)
    await s1.reply(r1, ports=[21000])
    await s2.reply(r2, ports=[22000])
    listing = await s1.expect("list")
    assert (listing["list_type"], listing["list_size"], listing["limits"]) == ("random", 1, limits)
    await _start_on_lab1(s1, s2, listing, task, job)


async def test_the_network_choice_travels_in_list_for_the_daemons_to_compile(student, settings) -> None:
    s1, s2, _ = await _two_daemons(max_instances=4)
    network = {"net": "king", "loss": "1%"}
    job = await db(job_make)(student, nodes=1, network=network)
    task = in_worker_thread(job_schedule, job.id)
    r1, r2 = await s1.expect("register"), await s2.expect("register")
    await s1.reply(r1, ports=[21000])
    await s2.reply(r2, ports=[22000])
    listing = await s1.expect("list")
    assert listing["network"] == {"options": network, "seed": job.id, "nodes": 1}
    await _start_on_lab1(s1, s2, listing, task, job)


async def test_the_message_trace_travels_in_list_for_job_json(student, settings) -> None:
    s1, s2, _ = await _two_daemons(max_instances=4)
    job = await db(job_make)(student, nodes=1, trace={"max_events": 500})
    task = in_worker_thread(job_schedule, job.id)
    r1, r2 = await s1.expect("register"), await s2.expect("register")
    await s1.reply(r1, ports=[21000])
    await s2.reply(r2, ports=[22000])
    listing = await s1.expect("list")
    assert listing["trace"] == {"max_events": 500}
    await _start_on_lab1(s1, s2, listing, task, job)


def _course_with_daemon(student, daemon) -> None:
    from courses.models import Course, Membership
    course = Course.objects.create(name="DS 101", slug="ds-101", max_nodes_per_job=50)
    course.daemons.add(daemon)
    Membership.objects.create(user=student, course=course, role=Membership.Role.STUDENT)


async def test_a_students_job_runs_on_their_courses_daemons_only(student) -> None:
    s1, s2, daemons = await _two_daemons(max_instances=4)
    await db(_course_with_daemon)(student, daemons[1])
    job = await db(job_make)(student, nodes=5)   # 8 free slots online, 4 of them the course's
    await asyncio.wait_for(in_worker_thread(job_schedule, job.id), 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.NO_RESOURCES
    assert job.reason == "job needs 5 instances, only 4 free slots on 1 online daemon of your course"
    assert await s1.ws.receive_nothing(0.2) and await s2.ws.receive_nothing(0.2)
    await s1.close()
    await s2.close()
