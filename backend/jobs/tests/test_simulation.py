"""Simulated jobs (jobs.simulation, docs/simulation.md): POST mode=sim queues the simulation
task; the task runs the real simulator (sandbox/simulate.py, LuaJIT) and stores its records
through the same ingest as a daemon's, with t = the job's start + virtual seconds."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from django.db import connection

from jobs.models import ChurnEvent, Job, JobInstance
from jobs.simulation import simulation_run
from logs.models import LogLine
from metrics.models import MetricSeries
from traces.models import TraceChunk

URL = "/api/jobs/"
APP = """require "splay.base"
local metrics = require "splay.metrics"
events.run(function()
  events.sleep(job.position)
  log.print("node " .. job.position .. " at " .. misc.time() .. " draws " .. math.random(1000))
  metrics.observe("wait", misc.time())
end)
"""


def create(client, monkeypatch, **extra) -> dict:
    queued: list[int] = []
    monkeypatch.setattr("jobs.tasks.simulation_run.delay", queued.append)
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: pytest.fail("scheduled on daemons"))
    data = {"code": APP, "nodes": 3, "duration": 10, "mode": "sim", **extra}
    res = client.post(URL, {k: v for k, v in data.items() if v is not None}, format="json")
    assert res.status_code == 201, res.json()
    return res.json() | {"queued": queued}


@pytest.mark.django_db(transaction=True)
def test_a_simulated_job_runs_in_virtual_time_and_lands_in_the_usual_views(student_client, monkeypatch) -> None:
    body = create(student_client, monkeypatch, seed=9)
    assert body["mode"] == "sim" and body["seed"] == 9 and body["queued"] == [body["id"]]
    simulation_run(body["id"])
    job = Job.objects.get(id=body["id"])
    assert job.state == Job.State.ENDED, job.reason
    lines = list(LogLine.objects.filter(job=job).order_by("node"))
    assert [ln.text.split(" draws ")[0] for ln in lines] == [f"node {k} at {k}" for k in (1, 2, 3)]
    epoch = job.started_at.timestamp()
    assert [round(ln.t - epoch, 3) for ln in lines] == [1.0, 2.0, 3.0]
    assert MetricSeries.objects.get(job=job, name="wait").count == 3
    assert job.progress["virtual_t"] == 10.0 and job.progress["events"] > 0
    assert sorted(JobInstance.objects.filter(job=job).values_list("node", "state")) == [
        (1, "ENDED"), (2, "ENDED"), (3, "ENDED")]
    # the same seed draws the same numbers again
    again = create(student_client, monkeypatch, seed=9)
    simulation_run(again["id"])
    assert [ln.text for ln in LogLine.objects.filter(job_id=again["id"]).order_by("node")] == [ln.text for ln in lines]


@pytest.mark.django_db(transaction=True)
def test_a_simulated_syntax_error_fails_the_job_with_its_line(student_client, monkeypatch) -> None:
    body = create(student_client, monkeypatch, code="require 'splay.base'\nlocal = 1\n")
    simulation_run(body["id"])
    job = Job.objects.get(id=body["id"])
    assert job.state == Job.State.FAILED and job.error_line == 2
    assert job.reason.startswith("Lua syntax error: app.lua:2:")


@pytest.mark.django_db(transaction=True)
def test_a_simulated_churn_job_records_its_joins_and_leaves(student_client, monkeypatch) -> None:
    stay = "require 'splay.base'\nevents.run(function() events.periodic(1, function() end) end)\n"
    body = create(student_client, monkeypatch, code=stay, nodes=None, churn="at 0s join 3\nat 4s leave 1\n")
    simulation_run(body["id"])
    job = Job.objects.get(id=body["id"])
    assert job.state == Job.State.ENDED, job.reason
    events = list(ChurnEvent.objects.filter(job=job).values_list("event", "t"))
    assert events == [("join", 0.0)] * 3 + [("leave", 4.0)]
    assert JobInstance.objects.filter(job=job, state="LEFT").count() == 1


@pytest.mark.django_db(transaction=True)
def test_stop_ends_a_running_simulation(student_client, monkeypatch) -> None:
    spin = "require 'splay.base'\nevents.run(function() while true do events.sleep(0.001) end end)\n"
    body = create(student_client, monkeypatch, code=spin, duration=3600)
    def run() -> None:
        try:
            simulation_run(body["id"])
        finally:
            connection.close()   # this thread's own connection
    runner = threading.Thread(target=run)
    started = time.monotonic()
    runner.start()
    while not Job.objects.filter(id=body["id"], state="RUNNING").exists():
        assert time.monotonic() - started < 30
        time.sleep(0.1)
    assert student_client.post(f"{URL}{body['id']}/stop/").status_code == 200
    runner.join(timeout=30)
    assert not runner.is_alive()
    job = Job.objects.get(id=body["id"])
    assert job.state == Job.State.KILLED
    assert not JobInstance.objects.filter(job=job, state="RUNNING").exists()


def test_simulated_jobs_take_up_to_10000_nodes_and_refuse_keep_population(student_client, monkeypatch) -> None:
    monkeypatch.setattr("jobs.tasks.simulation_run.delay", lambda job_id: None)
    ok = student_client.post(URL, {"code": APP, "nodes": 10_000, "mode": "sim"}, format="json")
    assert ok.status_code == 201 and ok.json()["seed"] == 1
    live = student_client.post(URL, {"code": APP, "nodes": 10_000}, format="json")
    assert live.status_code == 400 and "up to 10,000 simulated" in live.json()["nodes"][0]
    keep = student_client.post(URL, {"code": APP, "nodes": 3, "mode": "sim", "keep_population": True}, format="json")
    assert keep.status_code == 400 and "keep_population" in keep.json()


PING = """require "splay.base"
local rpc = require "splay.rpc"
function ping(x) return x end
rpc.server(job.me.port)
events.run(function()
  if job.position == 1 then
    events.sleep(1)
    rpc.call(job.nodes[2], {"ping", "hello"})
  end
  events.sleep(3)
  events.exit()
end)
"""


@pytest.mark.django_db(transaction=True)
def test_a_simulated_job_is_always_traced(student_client, monkeypatch) -> None:
    three_pings = PING.replace('rpc.call(job.nodes[2], {"ping", "hello"})',
                               'for _ = 1, 3 do rpc.call(job.nodes[2], {"ping", "hello"}) end')
    capped = create(student_client, monkeypatch, code=three_pings, nodes=2, duration=5, trace={"max_events": 1})
    plain = create(student_client, monkeypatch, code=PING, nodes=2, duration=5)
    for body in (capped, plain):
        simulation_run(body["id"])
        assert Job.objects.get(id=body["id"]).state == Job.State.ENDED
    assert TraceChunk.objects.filter(job_id=capped["id"]).exists()
    # the job's cap holds in simulation too: one listed row per node, then aggregates whose sums stay exact
    summary = student_client.get(f"/api/jobs/{capped['id']}/trace/").json()["summary"]
    assert summary["capped"] is True
    assert {n["node"]: n["messages_out"] for n in summary["nodes"]} == {1: 3, 2: 0}
    page = student_client.get(f"/api/jobs/{plain['id']}/trace/").json()
    nodes = {n["node"]: (n["messages_out"], n["messages_in"]) for n in page["summary"]["nodes"]}
    assert nodes == {1: (1, 0), 2: (0, 1)}
    [call] = [r for r in page["rows"] if r[2] == "call"]
    assert (call[1], call[3], call[4], call[7]) == (1, 2, "ping", "ok")
    assert 1.0 <= call[0] < 1.1  # virtual seconds since the start


FLOOD = (Path(__file__).resolve().parents[3] / "sandbox" / "tests" / "apps" / "flood.lua").read_text()


@pytest.mark.django_db(transaction=True)
def test_a_flooding_simulated_job_stores_its_capped_output(student_client, monkeypatch) -> None:
    # the daemons' output limits on virtual time (docs/architecture.md "Output limits")
    body = create(student_client, monkeypatch, code=FLOOD, nodes=2, duration=3)
    simulation_run(body["id"])
    job = Job.objects.get(id=body["id"])
    assert job.state == Job.State.ENDED, job.reason
    prints = LogLine.objects.filter(job=job, level="print")
    assert {k: prints.filter(node=k).count() for k in (1, 2)} == {1: 3000, 2: 3000}
    warnings = list(LogLine.objects.filter(job=job, level="warning").order_by("node", "seq").values_list("node", "text"))
    assert warnings[:2] == [(1, "log rate limit: 9000 lines dropped")] * 2 and len(warnings) == 6


@pytest.mark.django_db(transaction=True)
def test_a_simulated_jobs_descriptor_may_lower_its_budget_never_raise_it(student_client, monkeypatch) -> None:
    asks = "--[[\nBEGIN SPLAY RESOURCES RESERVATION\nlog_max_size {}\nEND SPLAY RESOURCES RESERVATION\n]]\n"
    body = create(student_client, monkeypatch, code=asks.format(50_000) + FLOOD, nodes=2, duration=3)
    simulation_run(body["id"])
    job = Job.objects.get(id=body["id"])
    assert job.state == Job.State.ENDED, job.reason
    texts = list(LogLine.objects.filter(job=job).values_list("level", "text"))
    assert [t for lv, t in texts if t.startswith("log budget")] == [
        "log budget: job output limit of 48.8 KB reached, further output dropped"]
    assert sum(len(lv) + len(t.encode()) + 2 for lv, t in texts if lv == "print") <= 50_000

    too_much = create(student_client, monkeypatch, code=asks.format(100 * 1024 * 1024) + FLOOD, nodes=1, duration=1)
    simulation_run(too_much["id"])
    job = Job.objects.get(id=too_much["id"])
    assert (job.state, job.reason) == (Job.State.FAILED, "INVALID_LOG: asked log_max_size = 100 MB per job, "
                                                         "the simulator allows 50 MB")


@pytest.mark.django_db(transaction=True)
def test_a_simulated_jobs_instances_record_the_address_each_node_has(student_client, monkeypatch) -> None:
    body = create(student_client, monkeypatch, code='print(job.me.ip .. ":" .. job.me.port)')
    simulation_run(body["id"])
    seen = dict(LogLine.objects.filter(job_id=body["id"]).values_list("node", "text"))
    recorded = {i["node"]: f'{i["ip"]}:{i["port"]}' for i in student_client.get(f"{URL}{body['id']}/").json()["instances"]}
    assert recorded == seen
    assert len({address.split(":")[0] for address in seen.values()}) == 3   # one address per node
