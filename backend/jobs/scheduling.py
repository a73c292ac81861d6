"""job_schedule: SPLAY section 3.1 (REGISTER a superset, SPLAYLAB_SUPERSET or the descriptor's
`factor` times the nodes, on the candidate daemons, fastest first; keep the first n slots that
answer, FREE the rest, then LIST and START). Candidates (issue 8) are chosen by jobs.selection: ONLINE, available by
their owner's policy, not drained, key not revoked, labels matching the descriptor's
`daemon_labels`, owner's ceilings (hello `limits`) at least what the descriptor names; of those,
only daemons that reach each other (issue 24: a pair measured unreachable either way is never
spanned, jobs.selection.reachable_group). Called by the Celery task with a job id.

Every wait here is for a reply whose work does not grow with the job's size, so one
SPLAYLAB_REGISTER_TIMEOUT fits a job of 1 node as of 1,000: REGISTER picks ports, LIST writes
the job down (and compiles an emulated network: about 0.5 s for 500 of 1,000 king nodes),
START answers before it launches anything (each instance then reports RUNNING or FAILED)."""
from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from daemons.commands import Command, Reply, commands_send
from daemons.models import Daemon
from daemons import relay
from daemons.reachability import unreachable_pairs
from lib.descriptor import Descriptor
from lib.lua_syntax import LuaCheckUnavailable, lua_syntax_check
from lib.network import SANDBOX_DIR  # noqa: F401  (puts sandbox/ on the path)
from node_address import node_ip  # noqa: E402  (sandbox/node_address.py: docs/splay-compat.md)

from .churn import network_overlay as churn_network_overlay
from .churn import plan_load as churn_plan_load
from .churn import remaining as churn_remaining
from .churn import start_lead as churn_start_lead
from .churn import timelines as churn_timelines
from .models import ChurnEvent, Job, JobInstance
from .selection import (CEILINGS, ceiling_of, daemon_request, exclusions_text, job_ask, log_budget_shares, plural,
                        reachable_group, spread, unreachable_text)
from .services import instances_terminate, job_finish_if_done, job_state_set

logger = logging.getLogger(__name__)

State = Job.State
IState = JobInstance.State
SELF_UNREACHABLE = "their nodes cannot reach each other at their address (behind a router?)"
CUT_OFF = "cannot reach the daemons chosen, or be reached by them"
@dataclass
class Kept:
    daemon_id: int
    port: int


@dataclass
class Registration:
    kept: list[Kept] = field(default_factory=list)
    extra: dict[int, list[int]] = field(default_factory=dict)  # daemon → ports to free
    silent: set[int] = field(default_factory=set)  # asked, never answered (in time)
    refusals: list[str] = field(default_factory=list)


@dataclass
class Plan:
    slots: dict[int, int]  # daemon → slots to REGISTER
    requests: dict[int, dict[str, Any]]  # daemon → {max_mem, max_cpu, limits} for register and list
    excluded: str = ""  # exclusions_text of the online daemons that were not candidates


def _reserve(job: Job) -> Plan | None:
    """Lock ONLINE daemons, keep the candidates (available, not drained nor revoked, labels
    matched, ceilings high enough), count free slots, create placeholder RESERVED instances.
    Returns the plan, or None after setting NO_RESOURCES."""
    from courses.selectors import student_daemons  # a student's course may name its own machines

    allowed = student_daemons(user=job.owner)
    ask = job_ask(job)
    with transaction.atomic():
        online = Daemon.objects.select_for_update().filter(state=Daemon.State.ONLINE)
        if allowed is not None:
            online = online.filter(id__in=allowed)
        daemons: list[Daemon] = []
        requests: dict[int, dict[str, Any]] = {}
        excluded: dict[str, int] = {}
        for d in online.order_by("id"):
            request, why = daemon_request(ask, d)
            if request is None:
                excluded[why] = excluded.get(why, 0) + 1
            else:
                daemons.append(d)
                requests[d.id] = request
        # Who reaches whom (issue 24; a pair never measured counts as reachable). A daemon whose
        # nodes cannot reach each other at its own address (a router without port forwarding)
        # takes 1-node jobs only, unless its runtime sends its own nodes' traffic over
        # 127.0.0.1 (protocol 2, the same-machine shortcut): then only its pairs with other
        # daemons count.
        failures = unreachable_pairs(d.id for d in daemons)
        shortcut = {d.id for d in daemons if d.version >= relay.SHORTCUT_PROTOCOL}
        alone = {a for a, b, _ in failures if a == b and a not in shortcut}
        # two daemons that both keep a link to the node relay reach each other through it
        relayable = relay.relay_capable({d.id: d.version for d in daemons if d.relay_up})
        failures = [(a, b, why) for a, b, why in failures if a == b or not {a, b} <= relayable]
        if job.nodes > 1 and alone:
            daemons = [d for d in daemons if d.id not in alone]
            excluded[SELF_UNREACHABLE] = len(alone)
        # The fastest responders first (heartbeat round trip; unmeasured last): spread's ties.
        order = [d.id for d in sorted(daemons, key=lambda d: (d.rtt_ms is None, d.rtt_ms or 0.0, d.id))]
        active = dict(JobInstance.objects.filter(daemon__in=daemons, state__in=list(JobInstance.ACTIVE))
                      .values_list("daemon").annotate(n=Count("id")))
        free = {d.id: max(0, d.max_instances - active.get(d.id, 0)) for d in daemons}
        total = sum(free.values())
        why_not = exclusions_text(excluded)
        if total < job.nodes:
            job_state_set(job.id, expect=[State.REGISTERING], to=State.NO_RESOURCES,
                          reason=f"job needs {plural(job.nodes, 'instance')}, only "
                                 f"{plural(total, 'free slot')} on "
                                 f"{plural(len(daemons), 'online daemon')}"
                                 + (" of your course" if allowed is not None else "")
                                 + (f" ({why_not})" if why_not else ""))
            return None
        # Only daemons that reach each other.
        failures = [(a, b, why) for a, b, why in failures if a != b and free.get(a) and free.get(b)]
        group = reachable_group(free, order, {frozenset((a, b)) for a, b, _ in failures})
        if len(group) < sum(1 for f in free.values() if f > 0):
            names = {d.id: d.name for d in daemons}
            cut = [(names[a], names[b], why) for a, b, why in failures]
            in_group = sum(free[d] for d in group)
            if in_group < job.nodes:
                job_state_set(job.id, expect=[State.REGISTERING], to=State.NO_RESOURCES,
                              reason=f"job needs {plural(job.nodes, 'instance')}; {plural(total, 'free slot')} on "
                                     f"{plural(len(daemons), 'online daemon')}, but they cannot all reach each "
                                     f"other: {unreachable_text(cut)}; the most on daemons that can: "
                                     f"{plural(in_group, 'free slot')} on {', '.join(names[d] for d in group)}")
                return None
            left_out = sum(1 for d, f in free.items() if f > 0 and d not in group)
            excluded[CUT_OFF] = left_out
            why_not = exclusions_text(excluded)
            free = {d: free[d] for d in group}
            total = in_group
        slots = spread(free, min(total, math.ceil(job.nodes * ask.factor - 1e-9)), order)
        JobInstance.objects.bulk_create(
            JobInstance(job=job, daemon_id=d, state=IState.RESERVED)
            for d, count in slots.items() for _ in range(count))
        return Plan(slots={d: slots[d] for d in order if d in slots},
                    requests={d: requests[d] for d in slots}, excluded=why_not)


def _log_shares(instances: list[JobInstance], used: list[int], reserved: Plan) -> dict[int, dict[str, int]]:
    """The job's output budget split over its daemons by their nodes (selection.log_budget_shares)."""
    counts = {d: sum(1 for i in instances if i.daemon_id == d) for d in used}
    asked = next((r["limits"].get("log_max_size") for r in reserved.requests.values()
                  if isinstance(r.get("limits"), dict) and "log_max_size" in r["limits"]), None)
    limits = dict(Daemon.objects.filter(id__in=used).values_list("id", "limits"))
    key, unit, _ = CEILINGS["log_max_size"]
    ceilings = {d: (c * unit if (c := ceiling_of(limits.get(d), key)) is not None else None) for d in used}
    return log_budget_shares(asked, counts, ceilings)


def _register(job: Job, plan: Plan, names: dict[int, str]) -> Registration:
    n = job.nodes
    slots = plan.slots
    commands = [Command(d, {"type": "register", "job": job.id, "count": count, **plan.requests[d],
                            "duration": job.duration})
                for d, count in slots.items()]

    def ports_of(reply: Reply) -> list[int]:
        ports = reply.frame.get("ports") if reply.ok else None
        if not isinstance(ports, list):
            return []
        return [int(p) for p in ports if isinstance(p, int)][: slots[reply.daemon_id]]

    def enough(replies: list[Reply]) -> bool:
        return sum(len(ports_of(r)) for r in replies) >= n

    replies = commands_send(commands, timeout=settings.SPLAYLAB_REGISTER_TIMEOUT, enough=enough)
    reg = Registration(silent=set(slots) - {r.daemon_id for r in replies})
    offered: dict[int, list[int]] = {}
    for reply in replies:  # arrival order: the most responsive daemons win
        if not reply.ok:  # e.g. "INVALID_MEM: asked 512 MB per node, this daemon allows 256 MB"
            reg.refusals.append(f"{names[reply.daemon_id]}: {reply.reason}")
            continue
        offered[reply.daemon_id] = ports_of(reply)
    # Of the slots that answered by the time n had, keep n spread evenly over their daemons
    # (ties to the first to answer): each daemon then launches its share at the same time,
    # rather than the first to answer launching most of a large job alone.
    share = spread({d: len(p) for d, p in offered.items()}, n, list(offered))
    for d, ports in offered.items():
        take = share.get(d, 0)
        reg.kept.extend(Kept(d, p) for p in ports[:take])
        if ports[take:]:
            reg.extra[d] = ports[take:]
    return reg


def _release(job_id: int, reg: Registration, *, keep_kept: bool) -> None:
    """FREE unused ports; `stop` silent daemons (we do not know which ports they took).
    Fire and forget: a daemon that misses it reclaims at the job's duration anyway."""
    extra = {d: list(p) for d, p in reg.extra.items()}
    if not keep_kept:
        for k in reg.kept:
            extra.setdefault(k.daemon_id, []).append(k.port)
    commands = [Command(d, {"type": "free", "job": job_id, "ports": ports}) for d, ports in extra.items()]
    commands += [Command(d, {"type": "stop", "job": job_id}) for d in sorted(reg.silent)]
    commands_send(commands, timeout=0)


def _assign_nodes(job: Job, kept: list[Kept]) -> list[JobInstance]:
    with transaction.atomic():
        JobInstance.objects.filter(job=job, node__isnull=True).delete()
        return JobInstance.objects.bulk_create(
            JobInstance(job=job, node=k, daemon_id=slot.daemon_id, port=slot.port, state=IState.RESERVED)
            for k, slot in enumerate(kept, start=1))


def _command_all(job: Job, frames: dict[int, dict], names: dict[int, str], what: str) -> set[int]:
    """Send one command per daemon, wait for all; daemons that refuse or stay silent get
    their instances FAILED. Returns the daemons that said ok."""
    commands = [Command(d, frame) for d, frame in frames.items()]
    replies = {r.daemon_id: r for r in commands_send(commands, timeout=settings.SPLAYLAB_REGISTER_TIMEOUT)}
    ok = set()
    for d in frames:
        reply = replies.get(d)
        if reply is not None and reply.ok:
            ok.add(d)
            continue
        why = reply.reason if reply else f"no answer within {settings.SPLAYLAB_REGISTER_TIMEOUT:g} s"
        instances_terminate(job_id=job.id, state=IState.FAILED, daemon_ids=[d],
                            reason=f"daemon {names[d]} failed to {what}: {why}")
    return ok


def _still_registering(job_id: int) -> bool:
    return Job.objects.filter(id=job_id, state=State.REGISTERING).exists()


def _abandon(job: Job, daemon_ids: set[int]) -> None:
    """The job was stopped while we were deploying it."""
    commands_send([Command(d, {"type": "stop", "job": job.id}) for d in sorted(daemon_ids)], timeout=0)
    instances_terminate(job_id=job.id, state=IState.KILLED, reason=job.reason or "job stopped")


def job_schedule_run(job_id: int) -> None:
    # 1. Claim: only one scheduler ever works on a job.
    if not job_state_set(job_id, expect=[State.QUEUED], to=State.REGISTERING):
        return
    job = Job.objects.get(id=job_id)

    # 2. Syntax check on the controller.
    try:
        error = lua_syntax_check(job.code, job.filename, luajit=settings.SPLAYLAB_LUAJIT)
    except LuaCheckUnavailable as exc:
        job_state_set(job_id, expect=[State.REGISTERING], to=State.FAILED,
                      reason=f"controller cannot check Lua syntax: {exc}")
        return
    if error is not None:
        job_state_set(job_id, expect=[State.REGISTERING], to=State.FAILED,
                      reason=f"Lua syntax error: {error.message}", error_line=error.line)
        return

    # 3-4. Count free slots, reserve a superset, REGISTER, keep the first n that answer.
    reserved = _reserve(job)
    if reserved is None:
        return
    names = dict(Daemon.objects.filter(id__in=reserved.slots).values_list("id", "name"))
    reg = _register(job, reserved, names)
    if len(reg.kept) < job.nodes or not _still_registering(job_id):
        _release(job_id, reg, keep_kept=False)
        instances_terminate(job_id=job_id, state=IState.KILLED, reason="not deployed")
        detail = "; ".join(reg.refusals + ([reserved.excluded] if reserved.excluded else []))
        job_state_set(job_id, expect=[State.REGISTERING], to=State.NO_RESOURCES,
                      reason=f"job needs {plural(job.nodes, 'instance')}, only "
                             f"{len(reg.kept)} slots answered within "
                             f"{settings.SPLAYLAB_REGISTER_TIMEOUT:g} s" + (f" ({detail})" if detail else ""))
        return
    _release(job_id, reg, keep_kept=True)
    instances = _assign_nodes(job, reg.kept)

    # 5. LIST (the whole node list, node k = nodes[k]) then START on each kept daemon.
    ips = dict(Daemon.objects.filter(id__in=reserved.slots).values_list("id", "ip"))
    for i in instances:  # each node's own address: on a loopback daemon, a loopback address of its own
        i.ip = node_ip(ips[i.daemon_id] or "127.0.0.1", i.port)
    JobInstance.objects.bulk_update(instances, ["ip"])
    node_list = [{"ip": i.ip, "port": i.port} for i in instances]
    used = sorted({i.daemon_id for i in instances})
    descriptor = Descriptor(values=dict(job.descriptor or {}))
    shares = _log_shares(instances, used, reserved)  # one output budget for the whole job
    lists = {d: {"type": "list", "job": job.id, "code": job.code, "filename": job.filename,
                 "instances": [{"node": i.node, "port": i.port} for i in instances if i.daemon_id == d],
                 "nodes": node_list, "list_type": descriptor.list_type,
                 "list_size": descriptor.list_size,
                 "limits": {**reserved.requests[d]["limits"], **shares.get(d, {})}} for d in used}
    # peers measured unreachable (both daemons relay-capable, or placement kept them apart):
    # connected to through the node relay (daemons.relay)
    cut = {(a, b) for a, b, _ in unreachable_pairs(used) if a != b}
    if cut:
        placed = [(i.daemon_id, i.port, n["ip"]) for i, n in zip(instances, node_list)]
        nb_ports = int(next(iter(lists.values()))["limits"].get("network_nb_ports") or 1)
        for d, block in relay.list_blocks(job.id, placed, nb_ports, cut).items():
            lists[d]["relay"] = block
    if job.trace:  # the runtime's message trace (docs/trace.md): job.json's "trace" block
        for frame in lists.values():
            frame["trace"] = dict(job.trace)
    plan = churn_plan_load(job.churn) if job.has_churn else None
    overlay = churn_network_overlay(plan, job.nodes) if plan is not None else None
    if job.network or overlay:  # each daemon compiles its own instances' blocks (sandbox/netmodel.py)
        for frame in lists.values():
            frame["network"] = {"options": job.network, "seed": job.id, "nodes": job.nodes}
            if overlay:
                frame["network"]["overlay"] = overlay
    if plan is not None:  # each daemon runs its nodes' timelines against its own clock
        lines = churn_timelines(plan)
        for frame in lists.values():
            frame["churn"] = {"end": plan.end, "events": {
                str(i["node"]): lines[i["node"]] for i in frame["instances"] if i["node"] in lines}}
    listed = _command_all(job, lists, names, "accept the node list")
    if not _still_registering(job_id):
        return _abandon(job, set(used))
    start = {"type": "start", "job": job.id}
    if plan is not None:  # t = 0: the same instant on every daemon
        lead = churn_start_lead([[t for line in lists[d]["churn"]["events"].values() for t, kind, _ in line
                                  if kind == "join"] for d in listed])
        start["lead"] = lead
        Job.objects.filter(id=job.id).update(churn_epoch=time.time() + lead)
    # START answers at once (the daemon launches its nodes afterwards): every instance becomes
    # RUNNING, or FAILED with why, by its daemon's own report, so no wait here grows with the
    # job's size (a churn job's nodes likewise report each join).
    # t = 0 of the job's logs is the moment START leaves, not when the last daemon answered: a
    # daemon that answers first launches its nodes while a loaded one is still replying, and
    # their first lines would otherwise come before the job's start.
    started_at = timezone.now()
    _command_all(job, {d: start for d in listed}, names, "start")
    if not job_state_set(job_id, expect=[State.REGISTERING], to=State.RUNNING, started_at=started_at):
        job.refresh_from_db()
        return _abandon(job, set(used))
    job_finish_if_done(job_id)  # e.g. every daemon failed to start


# A daemon starts its nodes one after another after answering START (a few at a time): about
# 10-40 ms each on a loaded 2-core machine. Deadlines counted from the job's start allow this
# much per node of the busiest daemon, so that a large job's last nodes get their whole duration.
LAUNCH_ALLOWANCE_PER_NODE = 0.05


def launch_allowance(job_id: int) -> float:
    """Seconds the job's daemons may take to launch every node after START (the most loaded
    daemon's share x LAUNCH_ALLOWANCE_PER_NODE)."""
    per_daemon = (JobInstance.objects.filter(job_id=job_id, node__isnull=False).values("daemon")
                  .annotate(n=Count("id")).values_list("n", flat=True))
    return LAUNCH_ALLOWANCE_PER_NODE * max(per_daemon, default=0)


def job_schedule_safely(job_id: int) -> None:
    """A crash must not leave the job REGISTERING forever with slots held."""
    try:
        job_schedule_run(job_id)
    except Exception as exc:
        logger.exception("scheduling job %s failed", job_id)
        instances_terminate(job_id=job_id, state=IState.FAILED, reason="scheduler error")
        job_state_set(job_id, expect=[State.QUEUED, State.REGISTERING], to=State.FAILED,
                      reason=f"scheduler error: {exc}")
        raise


def churn_replace_run(job_id: int, position: int, dead_node: int) -> None:
    """keep_population: a spare takes the place of `position`, whose node `dead_node` went down
    on its own. The spare follows the position's remaining timeline: all of it when the dead
    node is gone for good (terminal), else until the position's next planned leave (its own
    daemon rejoins it at its next planned join). Spares that cannot start are FAILED and the
    next is tried; with none left, the fail event says so."""
    job = Job.objects.get(id=job_id)
    if job.state != State.RUNNING or not job.keep_population or job.churn_epoch is None:
        return
    dead = JobInstance.objects.filter(job=job, node=dead_node).first()
    whole = dead is None or dead.state in JobInstance.TERMINAL
    up, rest = churn_remaining(churn_plan_load(job.churn), position, time.time() - job.churn_epoch)
    if not whole:
        cut = next((k for k, ev in enumerate(rest) if ev[1] == "leave"), len(rest))
        rest = rest[:cut + 1]
    if not up:
        return  # the scenario has the position down now; it comes back by its own timeline
    for spare in (JobInstance.objects.filter(job=job, node__gt=job.churn_positions, plays__isnull=True,
                                             state=IState.RESERVED, daemon__state=Daemon.State.ONLINE)
                  .select_related("daemon").order_by("node")):
        if not JobInstance.objects.filter(id=spare.id, plays__isnull=True).update(plays=position):
            continue  # another replacement took it
        command = {"type": "join", "job": job.id, "node": spare.node, "plays": position, "events": rest}
        replies = commands_send([Command(spare.daemon_id, command)], timeout=settings.SPLAYLAB_REGISTER_TIMEOUT)
        if replies and replies[0].ok:
            return
        why = replies[0].reason if replies else f"no answer within {settings.SPLAYLAB_REGISTER_TIMEOUT:g} s"
        JobInstance.objects.filter(id=spare.id, state=IState.RESERVED).update(
            state=IState.FAILED, exit_reason=f"daemon {spare.daemon.name} failed to start the spare: {why}")
    last = ChurnEvent.objects.filter(job=job, node=dead_node, event=ChurnEvent.Event.FAIL).order_by("-id").first()
    if last is not None:
        ChurnEvent.objects.filter(id=last.id).update(text=last.text + "; no spare left to replace it")
