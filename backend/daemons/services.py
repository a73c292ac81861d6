"""Writes on daemons: hello (authenticate, new or resumed session), contact, disconnect,
and the unseen sweep (SPLAY's `unseen` process)."""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from jobs.models import JobInstance
from jobs.services import churn_node_down, job_finish_if_done

from .models import Daemon, daemon_key_generate, daemon_key_hash

IState = JobInstance.State


def daemon_create_or_rekey(*, name: str, max_instances: int = 0, port_lo: int = 0,
                           port_hi: int = 0) -> tuple[Daemon, str]:
    """Idempotent by name: a new key each time (the old one stops working)."""
    key = daemon_key_generate()
    daemon, _ = Daemon.objects.update_or_create(
        name=name, defaults={"key_hash": daemon_key_hash(key), "max_instances": max_instances,
                             "port_lo": port_lo, "port_hi": port_hi, "session": ""})
    return daemon, key


def daemon_authenticate(*, key: str) -> Daemon | None:
    if not key:
        return None
    return Daemon.objects.filter(key_hash=daemon_key_hash(key)).first()


@dataclass
class HelloResult:
    daemon_id: int
    name: str
    session: str
    resumed: bool
    previous_channel: str  # an older consumer of this daemon to close, or ""
    stale_jobs: list[int] = field(default_factory=list)  # jobs the daemon runs but should not


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
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


def daemon_hello(*, daemon_id: int, hello: dict[str, Any], channel_name: str, ip: str | None) -> HelloResult:
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
            missing = [i.id for i in active.filter(node__isnull=False, state=IState.RUNNING)
                       if (i.job_id, i.node) not in listed]
            lost_jobs = _lose(JobInstance.objects.filter(id__in=missing),
                              f"daemon {daemon.name} no longer runs it after reconnecting")
            session = daemon.session
        else:
            lost_jobs = _lose(active, f"daemon {daemon.name} restarted (new session)")
            session = uuid.uuid4().hex
        still = set(JobInstance.objects.filter(daemon=daemon, state__in=list(JobInstance.ACTIVE),
                                               node__isnull=False).values_list("job_id", "node"))
        stale = sorted({job for job, node in listed if (job, node) not in still})
        previous = daemon.channel_name if daemon.channel_name != channel_name else ""
        ports = hello.get("ports") if isinstance(hello.get("ports"), list) else []
        # The hello's ip is the address other nodes must use; else the socket's peer.
        daemon.ip = str(hello.get("ip") or ip or daemon.ip or "127.0.0.1")
        daemon.max_instances = max(0, _int(hello.get("max_instances"), daemon.max_instances))
        if len(ports) == 2:
            daemon.port_lo, daemon.port_hi = _int(ports[0]), _int(ports[1])
        daemon.version = _int(hello.get("version"), 0)
        daemon.sandbox = str(hello.get("sandbox") or "")[:16]
        daemon.session = session
        daemon.state = Daemon.State.ONLINE
        daemon.last_contact = now
        daemon.channel_name = channel_name
        daemon.save()
    for job_id in sorted(lost_jobs):
        job_finish_if_done(job_id)
    return HelloResult(daemon.id, daemon.name, session, resumed, previous, stale)


def daemon_touch(*, daemon_id: int, channel_name: str) -> None:
    """Any frame proves the daemon is alive (and back ONLINE if it had gone UNSEEN)."""
    Daemon.objects.filter(id=daemon_id, channel_name=channel_name).update(
        last_contact=timezone.now(), state=Daemon.State.ONLINE)


def daemon_disconnect(*, daemon_id: int, channel_name: str) -> None:
    """Instances stay as they are until the unseen timeout: the daemon may come back."""
    Daemon.objects.filter(id=daemon_id, channel_name=channel_name).update(
        state=Daemon.State.OFFLINE, channel_name="")


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
