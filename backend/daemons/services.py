"""Writes on daemons: hello (authenticate, new or resumed session), contact, availability,
disconnect, and the sweeps: unreachable (silent for SPLAYLAB_DAEMON_DEAD_AFTER: keep-population
nodes replaced) and unseen (SPLAY's `unseen` process: the session ends)."""
from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone

from jobs.models import JobInstance
from jobs.churn_events import churn_node_down
from jobs.services import job_finish_if_done

from .models import Daemon, Reachability, daemon_key_generate, daemon_key_hash

IState = JobInstance.State


def daemon_create_or_rekey(*, name: str, max_instances: int = 0, port_lo: int = 0,
                           port_hi: int = 0) -> tuple[Daemon, str]:
    """Idempotent by name: a new key each time (the old one stops working)."""
    key = daemon_key_generate()
    daemon, _ = Daemon.objects.update_or_create(
        name=name, defaults={"key_hash": daemon_key_hash(key), "max_instances": max_instances,
                             "port_lo": port_lo, "port_hi": port_hi, "session": ""})
    return daemon, key


def daemon_authenticate(*, key: str) -> tuple[Daemon | None, str]:
    """(the daemon, "") or (None, why it is refused)."""
    daemon = Daemon.objects.filter(key_hash=daemon_key_hash(key)).first() if key else None
    if daemon is None:
        return None, "unknown daemon key"
    if daemon.revoked_at is not None:
        return None, "daemon key revoked"
    return daemon, ""


@dataclass
class HelloResult:
    daemon_id: int
    name: str
    session: str
    resumed: bool
    previous_channel: str  # an older consumer of this daemon to close, or ""
    acked: int = 0  # the last outbox number processed in this session
    # What the daemon runs but should not: whole jobs to stop, or some nodes' ports to free.
    stale_jobs: list[int] = field(default_factory=list)
    stale_ports: dict[int, list[int]] = field(default_factory=dict)
    # Instances the hello does not account for, lost unless the daemon's resent journal says
    # how they ended (daemon_unlisted_lose, once the frames up to `replay_until` are applied).
    unlisted: Unlisted | None = None


@dataclass(frozen=True)
class Unlisted:
    """A hello's verdict, deferred until the daemon's journal is replayed: the instances in
    `ids` still in one of `states` then are LOST with `reason`."""
    ids: tuple[int, ...]
    states: tuple[str, ...]
    reason: str
    replay_until: int  # the hello's outbox_last: the last numbered frame the daemon held (0: none)


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return default


def _lose(qs: Any, reason: str) -> set[int]:
    jobs = set(qs.values_list("job_id", flat=True))
    # Churn jobs' nodes that were up went down on their own (fail events, replacements).
    down = list(qs.filter(state=IState.RUNNING, job__churn_positions__isnull=False).select_related("job"))
    qs.filter(node__isnull=True).delete()
    qs.update(state=IState.LOST, exit_reason=reason)
    for inst in down:
        churn_node_down(inst.job, inst, reason)
    return jobs


def daemon_hello(*, daemon_id: int, hello: dict[str, Any], channel_name: str, ip: str) -> HelloResult:
    """A daemon said hello (its key already authenticated, `ip` decided by
    daemons.addresses.hello_address): a resumed or new session. The instances the hello does
    not account for (resumed: RUNNING here but not listed; new session: every active one) are
    not judged here but returned as `unlisted`: the daemon's journal, resent after `welcome`,
    may hold how they ended, and what it says comes first (daemon_unlisted_lose)."""
    now = timezone.now()
    unseen_after = timedelta(seconds=settings.SPLAYLAB_DAEMON_UNSEEN_AFTER)
    listed_raw = hello.get("instances") if isinstance(hello.get("instances"), list) else []
    listed = {(_int(i.get("job")), _int(i.get("node"))) for i in listed_raw if isinstance(i, dict)}
    with transaction.atomic():
        daemon = Daemon.objects.select_for_update().get(id=daemon_id)
        active = JobInstance.objects.filter(daemon=daemon, state__in=list(JobInstance.ACTIVE))
        resumed = bool(hello.get("session")) and hello.get("session") == daemon.session \
            and daemon.state != Daemon.State.UNSEEN \
            and daemon.last_contact is not None and now - daemon.last_contact <= unseen_after
        if resumed:
            # Sessions survive short disconnections: what the daemon still runs stays RUNNING,
            # and reservations stay (a daemon lists only running instances).
            missing = tuple(i.id for i in active.filter(node__isnull=False, state=IState.RUNNING)
                            if (i.job_id, i.node) not in listed)
            unlisted = Unlisted(missing, (IState.RUNNING,),
                                f"daemon {daemon.name} no longer runs it after reconnecting", 0)
            session = daemon.session
        else:
            unlisted = Unlisted(tuple(active.values_list("id", flat=True)), tuple(JobInstance.ACTIVE),
                                f"daemon {daemon.name} restarted (new session)", 0)
            session = uuid.uuid4().hex
        still = set(active.filter(node__isnull=False).exclude(id__in=unlisted.ids)
                    .values_list("job_id", "node"))
        stale_pairs = {(job, node) for job, node in listed if (job, node) not in still}
        kept_jobs = {job for job, _ in still}
        # A job still active here loses only its stale nodes (e.g. replaced while the daemon was
        # unreachable); a job with nothing left here is stopped whole.
        stale = sorted({job for job, _ in stale_pairs if job not in kept_jobs})
        stale_ports: dict[int, list[int]] = {}
        for inst in JobInstance.objects.filter(daemon=daemon, job_id__in=kept_jobs, node__isnull=False):
            if (inst.job_id, inst.node) in stale_pairs and inst.port:
                stale_ports.setdefault(inst.job_id, []).append(inst.port)
        previous = daemon.channel_name if daemon.channel_name != channel_name else ""
        ports = hello.get("ports") if isinstance(hello.get("ports"), list) else []
        daemon.ip = ip
        daemon.max_instances = max(0, _int(hello.get("max_instances"), daemon.max_instances))
        if len(ports) == 2:
            daemon.port_lo, daemon.port_hi = _int(ports[0]), _int(ports[1])
        daemon.version = _int(hello.get("version"), 0)
        daemon.relay_up = False  # its relay link comes up after the welcome; heartbeats say so
        daemon.sandbox = str(hello.get("sandbox") or "")[:16]
        probe = hello.get("probe") if isinstance(hello.get("probe"), dict) else {}
        daemon.probe_port = port if 1 <= (port := _int(probe.get("port"))) <= 65535 else 0  # reachability
        if not daemon.probe_port:  # no listener now: what was measured before no longer says anything
            Reachability.objects.filter(Q(src=daemon) | Q(dst=daemon)).delete()
        _owner_fields(daemon, hello)
        if not resumed:
            daemon.acked_seq = 0
        daemon.session = session
        daemon.state = Daemon.State.ONLINE
        daemon.last_contact = now
        daemon.channel_name = channel_name
        daemon.save()
    replay_until = max(0, _int(hello.get("outbox_last"), 0))
    return HelloResult(daemon.id, daemon.name, session, resumed, previous, daemon.acked_seq,
                       stale, stale_ports,
                       Unlisted(unlisted.ids, unlisted.states, unlisted.reason, replay_until)
                       if unlisted.ids else None)


def daemon_unlisted_lose(*, unlisted: Unlisted) -> list[int]:
    """The hello's verdict, after the daemon's resent journal was applied: the instances it
    did not account for and whose end the journal did not report are LOST. Returns them."""
    with transaction.atomic():
        qs = JobInstance.objects.select_for_update().filter(id__in=list(unlisted.ids),
                                                            state__in=list(unlisted.states))
        lost = list(qs.values_list("id", flat=True))
        jobs = _lose(JobInstance.objects.filter(id__in=lost), unlisted.reason)
    for job_id in sorted(jobs):
        job_finish_if_done(job_id)
    return lost


def _owner_fields(daemon: Daemon, hello: dict[str, Any]) -> None:
    """The owner's side of a hello: labels, limits (ceilings) and availability."""
    labels = hello.get("labels")
    daemon.labels = {str(k)[:64]: str(v)[:64] for k, v in labels.items()} if isinstance(labels, dict) else {}
    limits = hello.get("limits")
    daemon.limits = {str(k)[:64]: v for k, v in limits.items()
                     if isinstance(v, (int, float)) and not isinstance(v, bool)} \
        if isinstance(limits, dict) else {}
    availability = hello.get("availability") if isinstance(hello.get("availability"), dict) else {}
    daemon.availability = str(availability.get("policy") or "always")[:16]
    daemon.available = bool(availability.get("available", True))
    daemon.unavailable_reason = "" if daemon.available else str(availability.get("reason") or "")[:300]


@dataclass(frozen=True)
class Contact:
    """A daemon was heard on `channel_name`: how far its outbox was processed, its health."""
    daemon_id: int
    channel_name: str
    acked: int
    load: float | None = None
    rtt_ms: float | None = None
    relay_up: bool | None = None


def daemons_touch(*, contacts: list[Contact]) -> int:
    """Any frame proves a daemon alive (and back ONLINE if it had gone UNSEEN). One statement
    for every daemon a web process heard from lately (its consumers collect them): 200 daemons
    cost one UPDATE a second, not one per heartbeat. A daemon whose connection was replaced or
    closed meanwhile (another channel_name) is left alone."""
    if not contacts:
        return 0

    def per_daemon(field_name: str, attr: str) -> Case:
        whens = [When(id=c.daemon_id, then=Value(getattr(c, attr))) for c in contacts
                 if getattr(c, attr) is not None]
        return Case(*whens, default=F(field_name), output_field=Daemon._meta.get_field(field_name))

    heard = Q()
    for c in contacts:
        heard |= Q(id=c.daemon_id, channel_name=c.channel_name)
    return Daemon.objects.filter(heard).update(
        last_contact=timezone.now(), state=Daemon.State.ONLINE, acked_seq=per_daemon("acked_seq", "acked"),
        load=per_daemon("load", "load"), rtt_ms=per_daemon("rtt_ms", "rtt_ms"),
        relay_up=per_daemon("relay_up", "relay_up"))


def daemon_availability_set(*, daemon_id: int, available: bool, reason: str) -> list[int]:
    """The owner's policy changed its mind. Going unavailable, the daemon evicts its running
    nodes itself and reports them LOST (churn: keep-population replaces them elsewhere); it
    also drops its reserved slots without a report, so those (keep-population spares, nodes
    listed but not started) are LOST here, and no replacement waits on them. Returns them."""
    with transaction.atomic():
        Daemon.objects.filter(id=daemon_id).update(
            available=available, unavailable_reason="" if available else reason[:300])
        if available:
            return []
        reserved = JobInstance.objects.filter(daemon_id=daemon_id, state=IState.RESERVED, node__isnull=False)
        lost = list(reserved.values_list("id", flat=True))
        jobs = set(reserved.values_list("job_id", flat=True))
        reserved.update(state=IState.LOST, exit_reason=f"evicted: {reason}"[:300])
    for job_id in sorted(jobs):
        job_finish_if_done(job_id)
    return lost


def daemon_disconnect(*, daemon_id: int, channel_name: str, acked: int | None = None,
                      load: float | None = None, rtt_ms: float | None = None) -> None:
    """Instances stay as they are: the daemon may come back (see daemons_mark_unreachable)."""
    fields: dict[str, Any] = {"state": Daemon.State.OFFLINE, "channel_name": "", "relay_up": False}
    for name, value in (("acked_seq", acked), ("load", load), ("rtt_ms", rtt_ms)):
        if value is not None:
            fields[name] = value
    Daemon.objects.filter(id=daemon_id, channel_name=channel_name).update(**fields)


WEB_STARTED_KEY = "splaylab:web-started"


def web_started_record() -> None:
    """The web process (which holds the daemons' sockets) starts: daemons reconnect to it
    over the next seconds, so none counts as unreachable meanwhile."""
    import redis

    redis.Redis.from_url(settings.REDIS_URL).set(WEB_STARTED_KEY, str(time.time()))


def _web_started() -> float:
    import redis

    raw = redis.Redis.from_url(settings.REDIS_URL).get(WEB_STARTED_KEY)
    return float(raw) if raw else 0.0


RECONNECT_GRACE = 10.0  # the daemons' longest backoff (5 s, +25 %) and their connect timeout


def daemons_mark_unreachable() -> list[int]:
    """Daemons silent for SPLAYLAB_DAEMON_DEAD_AFTER s: their keep-population nodes become
    LOST and are replaced elsewhere (a killed host, a cut link, an owner who pulled the
    plug). Their other instances wait for the daemon or the unseen timeout. Nothing is
    declared while the controller itself hears from no daemon (it is the one cut off) or
    just started (daemons are reconnecting). Returns the daemons whose nodes were lost."""
    dead_after = settings.SPLAYLAB_DAEMON_DEAD_AFTER
    now = timezone.now()
    cutoff = now - timedelta(seconds=dead_after)
    if time.time() - _web_started() < dead_after + RECONNECT_GRACE:
        return []
    if not Daemon.objects.filter(last_contact__gte=cutoff).exists():
        return []
    jobs: set[int] = set()
    marked: list[int] = []
    with transaction.atomic():
        for daemon in Daemon.objects.select_for_update(skip_locked=True).filter(
                last_contact__lt=cutoff).exclude(state=Daemon.State.UNSEEN):
            kept = JobInstance.objects.filter(daemon=daemon, state=IState.RUNNING,
                                              job__keep_population=True, job__churn_positions__isnull=False)
            if not kept.exists():
                continue
            silent = (now - daemon.last_contact).total_seconds()
            jobs |= _lose(kept, f"daemon {daemon.name} unreachable for {silent:.0f} s")
            marked.append(daemon.id)
    for job_id in sorted(jobs):
        job_finish_if_done(job_id)
    return marked


def daemons_mark_unseen() -> list[int]:
    """Daemons silent longer than SPLAYLAB_DAEMON_UNSEEN_AFTER → UNSEEN, their instances
    LOST; jobs left with only terminal instances finish."""
    after = settings.SPLAYLAB_DAEMON_UNSEEN_AFTER
    cutoff = timezone.now() - timedelta(seconds=after)
    jobs: set[int] = set()
    marked: list[int] = []
    with transaction.atomic():
        for daemon in Daemon.objects.select_for_update(skip_locked=True).filter(
                last_contact__lt=cutoff).exclude(state=Daemon.State.UNSEEN):
            daemon.state = Daemon.State.UNSEEN
            daemon.save(update_fields=["state"])
            marked.append(daemon.id)
            active = JobInstance.objects.filter(daemon=daemon, state__in=list(JobInstance.ACTIVE))
            jobs |= _lose(active, f"daemon {daemon.name} unseen for more than {after:g} s")
    for job_id in sorted(jobs):
        job_finish_if_done(job_id)
    return marked
