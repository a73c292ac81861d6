"""Daemon selection (issue 8): candidates, owners' ceilings, labels, the superset factor,
the fastest responders first; and the refusals of daemons reaching the job's reason."""
import asyncio

import pytest
from channels.db import database_sync_to_async as db
from django.utils import timezone

from daemons.models import Daemon
from daemons.tests.factories import daemon_make
from daemons.tests.wsdaemon import FakeSplayd
from jobs.models import Job
from jobs.selection import Ask, daemon_request, exclusions_text, job_ask, log_budget_shares, spread
from jobs.tasks import job_schedule
from jobs.tests.factories import in_worker_thread, job_make

MB = 1024 * 1024
CEILINGS = {"max_mem_mb": 256, "max_cpu_seconds": 30, "disk_max_size_mb": 64, "disk_max_files": 1000,
            "max_sockets": 64, "max_send_mb": 1024, "max_receive_mb": 1024, "log_lines_per_second": 1000,
            "log_max_size_mb": 50}


def _ask(**kw) -> Ask:
    return Ask(**{"max_mem": None, "limits": {}, "labels": {}, "factor": 1.25, **kw})


def _daemon(**kw) -> Daemon:
    return Daemon(**{"name": "lab", "limits": CEILINGS, **kw})


# --- pure: one daemon's request, or why it is not a candidate ---------------------------------

def test_without_descriptor_values_asks_the_lower_of_default_and_ceiling(settings) -> None:
    settings.SPLAYLAB_MAX_MEM_MB, settings.SPLAYLAB_MAX_CPU_SECONDS = 512, 60
    request, why = daemon_request(_ask(), _daemon())
    assert (request, why) == ({"max_mem": 256 * MB, "max_cpu": 30, "limits": {}}, "")
    settings.SPLAYLAB_MAX_MEM_MB = 128
    assert daemon_request(_ask(), _daemon())[0]["max_mem"] == 128 * MB


def test_a_daemon_reporting_no_ceilings_gets_the_controller_defaults(settings) -> None:
    request, _ = daemon_request(_ask(limits={"max_sockets": 8}), _daemon(limits={}))
    assert request == {"max_mem": 256 * MB, "max_cpu": 60, "limits": {"max_sockets": 8}}


def test_named_values_are_asked_exactly_and_above_a_ceiling_exclude() -> None:
    ok, _ = daemon_request(_ask(max_mem=64 * MB, limits={"disk_max_size": 64 * MB, "max_sockets": 8}), _daemon())
    assert ok == {"max_mem": 64 * MB, "max_cpu": 30, "limits": {"disk_max_size": 64 * MB, "max_sockets": 8}}
    cases = [
        (_ask(max_mem=512 * MB), "max_mem 512 MB above their owners' limit"),
        (_ask(limits={"disk_max_size": 65 * MB}), "disk_max_size 65 MB above their owners' limit"),
        (_ask(limits={"disk_max_files": 1001}), "disk_max_files 1001 above their owners' limit"),
        (_ask(limits={"max_sockets": 100}), "network_max_sockets 100 above their owners' limit"),
        (_ask(limits={"max_send": 2048 * MB}), "network_max_send 2 GB above their owners' limit"),
        (_ask(limits={"max_receive": 1025 * MB}), "network_max_receive 1 GB above their owners' limit"),
        (_ask(limits={"log_lines_per_second": 2000}), "log_lines_per_second 2000 above their owners' limit"),
        (_ask(limits={"log_max_size": 60 * MB}), "log_max_size 60 MB above their owners' limit"),
    ]
    for ask, why in cases:
        assert daemon_request(ask, _daemon()) == (None, why)
    # udp_drop_ratio has no ceiling: passed on as is
    assert daemon_request(_ask(limits={"udp_drop_ratio": 0.5}), _daemon())[0]["limits"] == {"udp_drop_ratio": 0.5}


def test_state_and_labels_exclude() -> None:
    assert daemon_request(_ask(), _daemon(drained=True)) == (None, "drained by an instructor")
    assert daemon_request(_ask(), _daemon(revoked_at=timezone.now())) == (None, "key revoked")
    assert daemon_request(_ask(), _daemon(available=False)) == (None, "unavailable by their owners' policy")
    room = _ask(labels={"room": ["B12"], "owner": ["classroom", "volunteer"]})
    assert daemon_request(room, _daemon(labels={"room": "B12", "owner": "volunteer", "os": "x"}))[1] == ""
    assert daemon_request(room, _daemon(labels={"room": "B13", "owner": "volunteer"})) == (
        None, "labels room=B12,owner=classroom|volunteer not matched")
    assert daemon_request(room, _daemon(labels={})) [0] is None
    assert daemon_request(_ask(), _daemon(labels={"room": "B13"}))[1] == ""  # no constraint: any


def test_exclusions_text_counts_per_reason() -> None:
    assert exclusions_text({"max_mem 512 MB above their owners' limit": 2, "drained by an instructor": 1}) == (
        "2 daemons excluded: max_mem 512 MB above their owners' limit; 1 daemon excluded: drained by an instructor")


def test_spread_breaks_ties_by_the_given_order() -> None:
    assert spread({1: 4, 2: 4, 3: 4}, 2) == {1: 1, 2: 1}
    assert spread({1: 4, 2: 4, 3: 4}, 2, order=[3, 2, 1]) == {3: 1, 2: 1}
    assert spread({1: 4, 2: 4, 3: 4}, 4, order=[3, 1, 2]) == {3: 2, 1: 1, 2: 1}
    assert spread({1: 10, 2: 1}, 3, order=[2, 1]) == {1: 3}  # free slots still spread first


def test_factor_from_the_descriptor_or_the_setting(settings, student) -> None:
    settings.SPLAYLAB_SUPERSET = 1.5
    assert job_ask(job_make(student)).factor == 1.5
    assert job_ask(job_make(student, descriptor={"factor": 2.0})).factor == 2.0
    labelled = job_ask(job_make(student, descriptor={"daemon_labels": {"room": ["B12"]}}))
    assert labelled.labels == {"room": ["B12"]}


def test_a_bandwidth_above_the_owners_cap_excludes_and_no_cap_or_no_ask_does_not(student) -> None:
    ask = job_ask(job_make(student, network={"net": "king", "bandwidth": "2MB/s"}))
    assert ask.bandwidth == 2e6
    capped = _daemon(limits={**CEILINGS, "max_bandwidth_kbps": 8000})  # 1 MB/s
    assert daemon_request(ask, capped) == (None, "bandwidth 16000 kbit/s above their owners' limit")
    assert daemon_request(ask, _daemon(limits={**CEILINGS, "max_bandwidth_kbps": 0}))[0] is not None
    assert daemon_request(job_ask(job_make(student)), capped)[0] is not None  # the daemon caps it


# --- through the scheduler, with daemons on the websocket ------------------------------------

pytestmark = pytest.mark.django_db(transaction=True)


async def _daemons(*specs: dict) -> tuple[list[FakeSplayd], list[Daemon]]:
    """Connected fake splayds; each spec's fields (labels, limits, rtt_ms...) are then set on
    the row, the way hello and heartbeats fill them."""
    fakes, rows = [], []
    for i, spec in enumerate(specs, start=1):
        ports = (21000 + 1000 * i, 21099 + 1000 * i)
        daemon, key = await db(daemon_make)(f"lab-{i}", max_instances=spec.pop("max_instances", 4), ports=ports)
        fake = FakeSplayd(key, name=f"lab-{i}", max_instances=daemon.max_instances, ports=ports)
        await fake.connect()
        if spec:
            await db(Daemon.objects.filter(id=daemon.id).update)(**spec)
        fakes.append(fake)
        rows.append(daemon)
    return fakes, rows


async def _close(fakes: list[FakeSplayd]) -> None:
    for f in fakes:
        assert await f.ws.receive_nothing(0.2)
        await f.close()


async def test_excluded_daemons_are_not_asked_and_the_reason_says_why(student) -> None:
    fakes, _ = await _daemons({"limits": {"max_mem_mb": 256}}, {"limits": {"max_mem_mb": 256}},
                              {"drained": True}, {"limits": {"max_mem_mb": 1024}})
    job = await db(job_make)(student, nodes=5, descriptor={"max_mem": 512 * MB})
    await asyncio.wait_for(in_worker_thread(job_schedule, job.id), 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.NO_RESOURCES
    assert job.reason == ("job needs 5 instances, only 4 free slots on 1 online daemon (2 daemons excluded: "
                          "max_mem 512 MB above their owners' limit; 1 daemon excluded: drained by an instructor)")
    await _close(fakes)


async def test_register_is_per_daemon_within_ceilings_and_labels_pick_daemons(student, settings) -> None:
    fakes, _ = await _daemons(
        {"labels": {"room": "B12"}, "limits": {"max_mem_mb": 128, "max_cpu_seconds": 20}},
        {"labels": {"room": "B12"}, "limits": {"max_mem_mb": 1024}},
        {"labels": {"room": "A1"}})
    job = await db(job_make)(student, nodes=2, descriptor={"daemon_labels": {"room": ["B12"]},
                                                           "network_max_sockets": 8})
    task = in_worker_thread(job_schedule, job.id)
    r1, r2 = await fakes[0].expect("register"), await fakes[1].expect("register")
    assert (r1["max_mem"], r1["max_cpu"], r1["limits"]) == (128 * MB, 20, {"max_sockets": 8})
    assert (r2["max_mem"], r2["max_cpu"], r2["limits"]) == (256 * MB, 60, {"max_sockets": 8})
    assert (r1["count"], r2["count"]) == (2, 1)
    await fakes[0].reply(r1, ports=[22000, 22001])  # enough: lab-2 is not waited for
    assert (await fakes[1].expect("stop"))["job"] == job.id
    listing = await fakes[0].expect("list")
    assert (listing["instances"], listing["limits"]) == (
        [{"node": 1, "port": 22000}, {"node": 2, "port": 22001}], {"max_sockets": 8})
    await fakes[0].reply(listing)
    await fakes[0].reply(await fakes[0].expect("start"))
    await asyncio.wait_for(task, 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.RUNNING
    await _close(fakes)  # lab-3 (room A1) was never asked


def test_a_jobs_output_budget_is_split_over_its_daemons_by_their_nodes() -> None:
    assert log_budget_shares(None, {1: 3}, {1: 50 * MB}) == {}  # one daemon applies the whole
    assert log_budget_shares(None, {1: 3, 2: 1}, {1: 50 * MB, 2: 20 * MB}) == {
        1: {"log_max_size": 15 * MB, "log_max_size_of_job": 20 * MB},
        2: {"log_max_size": 5 * MB, "log_max_size_of_job": 20 * MB}}
    shares = log_budget_shares(1000, {1: 1, 2: 1, 3: 1}, {1: None, 2: None, 3: None})
    assert sum(v["log_max_size"] for v in shares.values()) <= 1000 and shares[1]["log_max_size_of_job"] == 1000
    assert log_budget_shares(None, {1: 1, 2: 1}, {1: None, 2: None}) == {}  # each its own ceiling


async def test_a_job_over_two_daemons_lists_each_its_share_of_the_output_budget(student) -> None:
    fakes, _ = await _daemons({"limits": {"log_max_size_mb": 50}, "max_instances": 2},
                              {"limits": {"log_max_size_mb": 50}, "max_instances": 2})
    job = await db(job_make)(student, nodes=3, descriptor={"log_max_size": 30 * MB, "factor": 1})
    task = in_worker_thread(job_schedule, job.id)
    regs = [await f.expect("register") for f in fakes]
    for f, r, base in zip(fakes, regs, (22000, 23000)):
        await f.reply(r, ports=[base + k for k in range(r["count"])])
    lists = [await f.expect("list") for f in fakes]
    shares = [(len(ls["instances"]), ls["limits"]["log_max_size"], ls["limits"]["log_max_size_of_job"]) for ls in lists]
    assert sorted(shares) == [(1, 10 * MB, 30 * MB), (2, 20 * MB, 30 * MB)]
    for f, ls in zip(fakes, lists):
        await f.reply(ls)
    for f in fakes:
        await f.reply(await f.expect("start"))
    await asyncio.wait_for(task, 10)
    await _close(fakes)


async def test_owner_refusals_reach_the_no_resources_reason(student) -> None:
    fakes, _ = await _daemons({}, {"labels": {"room": "A1"}})
    job = await db(job_make)(student, nodes=2, descriptor={"factor": 1.0})
    task = in_worker_thread(job_schedule, job.id)
    r1, r2 = await fakes[0].expect("register"), await fakes[1].expect("register")
    assert r1["count"] == r2["count"] == 1  # factor 1: exactly the nodes
    await fakes[0].reply(r1, ports=[22000])
    await fakes[1].ws.send_json_to({"type": "reply", "ref": r2["ref"], "ok": False,
                                    "reason": "INVALID_MEM: asked 256 MB per node, this daemon allows 128 MB"})
    assert (await fakes[0].expect("free"))["ports"] == [22000]
    await asyncio.wait_for(task, 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.NO_RESOURCES
    assert job.reason == ("job needs 2 instances, only 1 slots answered within 3 s "
                          "(lab-2: INVALID_MEM: asked 256 MB per node, this daemon allows 128 MB)")
    await _close(fakes)


async def test_the_fastest_responders_get_the_superset_and_the_setting_sets_it(student, settings) -> None:
    settings.SPLAYLAB_SUPERSET = 2.0
    fakes, _ = await _daemons({"rtt_ms": 40.0}, {}, {"rtt_ms": 3.0}, {"rtt_ms": 12.0})
    job = await db(job_make)(student, nodes=3)  # 6 slots of 16: one or two per daemon, fastest first
    task = in_worker_thread(job_schedule, job.id)
    counts = {}
    for i in (2, 3, 0, 1):
        frame = await fakes[i].expect("register")
        counts[i] = frame["count"]
        await fakes[i].ws.send_json_to({"type": "reply", "ref": frame["ref"], "ok": False, "reason": "NO_SLOTS"})
    assert counts == {2: 2, 3: 2, 0: 1, 1: 1}  # ties of free slots go to lab-3, lab-4, lab-1, then the unmeasured
    await asyncio.wait_for(task, 10)
    await db(job.refresh_from_db)()
    assert job.state == Job.State.NO_RESOURCES
    await _close(fakes)
