"""Simulated jobs (Job.mode == "sim", docs/simulation.md): the whole job runs in one LuaJIT
process on a virtual clock (sandbox/simulate.py), on the controller's simulation worker
(Celery queue `simulations`), not on daemons. Its records go through the same ingest as a
daemon's batches, so the job page's log, metrics and churn views work unchanged; their `t` is
the job's start (epoch seconds) plus the virtual time, as if the run had happened in real time.

simulation_run(job_id) claims a QUEUED job, makes its instance rows (one per node, no daemon),
runs the simulator, ingests records in batches, publishes progress (virtual time reached,
events/s) about once a second, stops the simulator when the job is stopped, and ends the job
with the live jobs' outcome rules (jobs.services.job_outcome), or FAILED with the
simulator's reason when the whole run stopped (a node that computes without end, memory).

The daemons' output limits apply, on virtual time (docs/architecture.md "Output limits"): at
most the daemon's lines per second per node and bytes per job (the descriptor may ask less,
never more: then the job FAILS with the daemon's INVALID_LOG reason), so a flooding node
reaches PostgreSQL as its kept lines and one "log rate limit: N lines dropped" warning per
node per virtual second, and the job's output stops at its budget with one "log budget" warning.
"""
from __future__ import annotations

import logging
import tempfile
import time
from pathlib import Path
from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import transaction

from lib.descriptor import Descriptor
from lib.lua_syntax import LuaCheckUnavailable, lua_syntax_check
from lib.network import netmodel
from logs.publisher import job_state_publish, log_lines_publish, metric_chunks_publish
from logs.frames import frame_ingest
from logs.text import storable_text

from .churn import network_overlay, plan_load
from .models import Job, JobInstance
from .churn_events import churn_event_add, churn_text
from .services import job_outcome, job_state_set

import simulate  # sandbox/simulate.py (lib.network puts sandbox/ on the path)

logger = logging.getLogger(__name__)

State, IState = Job.State, JobInstance.State
MAX_SIM_NODES = 10_000
DEFAULT_SEED = 1
FLUSH_EVERY_S = 0.5      # records reach the page in batches this often (wall clock)
FLUSH_LINES = 2000
PROGRESS_EVERY_S = 1.0


class _Run:
    """Collects the simulator's records and hands them to the ingest in batches."""

    def __init__(self, job: Job, epoch: float) -> None:
        self.job, self.epoch = job, epoch
        self.lines: list[dict[str, Any]] = []
        self.seq: dict[int, int] = {}
        self.ends: dict[int, tuple[str, int | None, str]] = {}     # node → (state, code, reason)
        self.first_error: dict[int, str] = {}
        self.churn: list[dict[str, Any]] = []
        self.last_flush = time.monotonic()
        self.last_progress = 0.0

    def record(self, k: int, t: float, level: str, text: str) -> None:
        if level == "exit":
            code_text, _, reason = text.partition("\t")
            code = int(code_text)
            self.ends[k] = _instance_end(code, reason, self.first_error.pop(k, None))
        elif level == "limit":   # the output limits' record (sim.lua): KIND<TAB>N<TAB>TEXT
            self._line(k, t, "warning", text.split("\t", 2)[2])
        elif level == "churn":
            parts = text.split("\t")
            self.churn.append({"node": k, "event": parts[0], "t": t, "planned": float(parts[1]),
                               "graceful": len(parts) > 2})
            if parts[0] == "join":
                self.ends[k] = (IState.RUNNING, None, "")
        else:
            if level == "fatal":
                level = "error"
            if level == "error" and k not in self.first_error and text.strip():
                self.first_error[k] = text.strip()
            self._line(k, t, level, text)
        if len(self.lines) >= FLUSH_LINES or time.monotonic() - self.last_flush >= FLUSH_EVERY_S:
            self.flush()

    def _line(self, k: int, t: float, level: str, text: str) -> None:
        seq = self.seq.get(k, 0) + 1
        self.seq[k] = seq
        self.lines.append({"node": k, "seq": seq, "t": round(self.epoch + t, 3), "level": level, "text": text})

    def flush(self) -> None:
        self.last_flush = time.monotonic()
        job_id = self.job.id
        lines, self.lines = self.lines, []
        if lines:
            # trace rows carry virtual seconds: stored, like every `t`, as the job's start plus them
            # (a simulation is always traced, docs/trace.md)
            stored = frame_ingest(job_id=job_id, nodes=None, raw_lines=lines, t_offset=self.epoch)
            if stored.chunks:
                async_to_sync(metric_chunks_publish)(job_id, stored.chunks)
            if stored.lines:
                async_to_sync(log_lines_publish)(job_id, stored.lines)
        for ev in self.churn:
            text = churn_text(f"node {ev['node']}", ev["event"], ev["graceful"])
            churn_event_add(self.job, node=ev["node"], event=ev["event"], t=ev["t"], planned=ev["planned"],
                            graceful=ev["graceful"], text=text + f", planned at {ev['planned']:g} s (simulated)")
        self.churn = []
        self._instances()

    def _instances(self) -> None:
        if not self.ends:
            return
        rows = {i.node: i for i in JobInstance.objects.filter(job_id=self.job.id, node__in=list(self.ends))}
        for node, (state, code, reason) in self.ends.items():
            inst = rows.get(node)
            if inst is not None:
                inst.state, inst.exit_code = state, code
                inst.exit_reason = storable_text(reason, limit=2000)  # node text: NUL escaped
        JobInstance.objects.bulk_update(list(rows.values()), ["state", "exit_code", "exit_reason"])
        self.ends = {}

    def progress(self, p: simulate.Progress) -> None:
        Job.objects.filter(id=self.job.id).update(progress={
            "virtual_t": round(p.virtual_t, 3), "events": p.events, "events_per_s": round(p.events_per_s),
            "nodes_started": p.nodes_started})
        job_state_publish(self.job.id)

    def stopped(self) -> bool:
        return Job.objects.filter(id=self.job.id, state=State.KILLED).exists()


def _instance_end(code: int, reason: str, first_error: str | None) -> tuple[str, int, str]:
    """A simulated node's end as an instance (state, exit code, reason), in the daemon's words
    (daemon/splayd/instances.py exit_outcome) for failures."""
    if reason.startswith("left (churn:"):
        return IState.LEFT, code, reason
    if code == 0:
        return IState.ENDED, code, reason
    detail = f": {first_error}" if first_error else ""
    what = {1: "runtime error", 2: "Lua syntax error", 3: "runtime internal error"}.get(code, f"exit code {code}")
    return IState.FAILED, code, what + detail


def output_limits(job: Job) -> Any:
    """The daemons' output limits (splayd.output_limits.OutputLimits), lowered by what the job's
    descriptor asks (ValueError, in the daemon's words, when it asks more)."""
    descriptor = Descriptor(values=dict(job.descriptor or {}))
    return simulate.output_limits(None, descriptor.get("log_lines_per_second"), descriptor.get("log_max_size"))


def _sim_job(job: Job, app: Path, harness: Path | None = None) -> simulate.SimJob:
    seed = job.seed if job.seed is not None else DEFAULT_SEED
    plan = plan_load(job.churn) if job.churn else None
    churn, until, stop_reason = simulate.run_plan(plan, job.duration)
    blocks = None
    overlay = network_overlay(plan, job.nodes) if plan is not None else None
    if job.network or overlay:
        spec = netmodel.spec_from_options(job.network or {})
        blocks = netmodel.compile_job(spec, job.nodes, seed, duration=float(job.duration))
        blocks = netmodel.with_overlay(blocks, overlay, job.nodes, spec.mtu) or None
    descriptor = Descriptor(values=dict(job.descriptor or {}))
    return simulate.SimJob(app=app, nodes=job.nodes, time=float(job.duration), seed=seed, net_blocks=blocks,
                           churn=churn, until=until, stop_reason=stop_reason, job_id=job.id,
                           list_type=descriptor.list_type, list_size=descriptor.list_size,
                           # a simulation is always traced (docs/trace.md); the job's block sets its cap
                           trace=dict(job.trace) if isinstance(job.trace, dict) else None,
                           output=output_limits(job), harness=harness,
                           max_wall=float(job.duration) * 20 + 600)


def simulation_run(job_id: int) -> None:
    if not job_state_set(job_id, expect=[State.QUEUED], to=State.RUNNING):
        return
    job = Job.objects.get(id=job_id)
    try:   # as for live jobs: a syntax error is the job's reason, with its line for the editor
        error = lua_syntax_check(job.code, job.filename, luajit=settings.SPLAYLAB_LUAJIT)
    except LuaCheckUnavailable as exc:
        job_state_set(job_id, expect=[State.RUNNING], to=State.FAILED, reason=f"controller cannot check Lua syntax: {exc}")
        return
    if error is not None:
        job_state_set(job_id, expect=[State.RUNNING], to=State.FAILED, reason=f"Lua syntax error: {error.message}",
                      error_line=error.line)
        return
    try:
        output_limits(job)
    except ValueError as exc:
        job_state_set(job_id, expect=[State.RUNNING], to=State.FAILED, reason=str(exc))
        return
    epoch = job.started_at.timestamp() if job.started_at else time.time()
    with transaction.atomic():
        JobInstance.objects.bulk_create([JobInstance(job=job, node=k, port=a["port"], ip=a["ip"],
                                                     state=IState.RESERVED if job.has_churn else IState.RUNNING)
                                         for k, a in enumerate(simulate.node_addresses(job.nodes), start=1)])
        if job.has_churn:
            Job.objects.filter(id=job_id).update(churn_epoch=epoch)
            job.churn_epoch = epoch
    run = _Run(job, epoch)
    failure = None
    with tempfile.TemporaryDirectory(prefix=f"splaylab-sim-{job_id}-") as tmp:
        app = Path(tmp) / (job.filename or "app.lua")
        app.write_text(job.code)
        harness = Path(tmp) / "harness.lua" if job.harness else None
        if harness is not None:
            harness.write_text(job.harness)
        try:
            result = simulate.simulate(_sim_job(job, app, harness), run.record, run.progress, workdir=Path(tmp) / "run",
                                       cancel=run.stopped)
            failure = result.failure
            if result.final is not None:
                run.progress(result.final)
        except Exception as e:  # the simulator could not run at all: say so on the job
            logger.exception("simulation of job %s", job_id)
            failure = f"the simulator could not run: {e}"
        run.flush()
    # Still up when the simulator stopped (a stop, a failure of the whole run), or never joined.
    # Nodes that left stay LEFT, with the churn's reason.
    JobInstance.objects.filter(job_id=job_id, state__in=[IState.RUNNING, IState.RESERVED]).update(
        state=IState.KILLED, exit_reason="the simulation ended")
    if failure is not None:
        job_state_set(job_id, expect=[State.RUNNING], to=State.FAILED, reason=failure)
        return
    instances = list(JobInstance.objects.filter(job_id=job_id))
    outcome = job_outcome(instances, job.filename)
    job_state_set(job_id, expect=[State.RUNNING], to=outcome.state, reason=outcome.reason,
                  error_line=outcome.error_line)
