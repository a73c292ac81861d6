"""Who can reach whom (issue 24; docs/volunteer.md "Behind a router").

Nodes of one job on two daemons connect to the addresses their daemons advertise. A daemon
behind a home router dials the controller out but takes no connection in, so the controller asks
the daemons themselves: each ONLINE daemon that advertises a probe listener (hello's "probe") is
sent a `probe` command naming the others (daemon/splayd/reach.py), and what it measured is kept
per ordered pair in `Reachability` (the latest measure only). Probed when a daemon says hello
(the pairs it is in: it may have moved to another network) and on request from the dashboard.

A pair never measured (a daemon without a listener, or one that did not answer in time) is
unknown, not unreachable: placement (jobs.selection.unreachable_pairs) keeps only measured
failures out, so an older daemon is placed as before.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Iterable

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .commands import Command, commands_send
from .models import Daemon, Reachability

logger = logging.getLogger(__name__)

PROBE_TIMEOUT = 2.0  # seconds a daemon waits for each target's answer
REPLY_MARGIN = 3.0  # ... and the controller for the daemon's reply, on top
SOON = 1.0  # seconds after a hello: its welcome is out and its commands are read


@dataclass(frozen=True)
class Target:
    daemon_id: int
    name: str
    ip: str
    port: int

    def frame(self) -> dict[str, Any]:
        return {"daemon": self.daemon_id, "name": self.name, "ip": self.ip, "port": self.port}


def probe_plan(targets: list[Target], *, involving: set[int] | None = None,
               among: set[int] | None = None) -> dict[int, list[Target]]:
    """Pure: prober -> the daemons it tries. Every ordered pair, a daemon and itself included
    (its nodes reach each other at its advertised address too: behind a router without port
    forwarding, where the controller records the router's address, they do not), limited to
    pairs with one end in `involving` and to pairs with both ends in `among` when given."""
    plan: dict[int, list[Target]] = {}
    for src in targets:
        for dst in targets:
            if involving is not None and not ({src.daemon_id, dst.daemon_id} & involving):
                continue
            if among is not None and not {src.daemon_id, dst.daemon_id} <= among:
                continue
            plan.setdefault(src.daemon_id, []).append(dst)
    return plan


def probe_targets() -> list[Target]:
    """The ONLINE daemons with a probe listener and an address, by id."""
    rows = (Daemon.objects.filter(state=Daemon.State.ONLINE, probe_port__gt=0, ip__isnull=False,
                                  revoked_at__isnull=True)
            .order_by("id").values_list("id", "name", "ip", "probe_port"))
    return [Target(*row) for row in rows]


def reachability_probe(*, involving: Iterable[int] | None = None, among: Iterable[int] | None = None,
                       timeout: float = PROBE_TIMEOUT) -> int:
    """Ask the daemons to probe each other (probe_plan's pairs), store what they answer.
    Returns the number of pairs stored. A daemon that does not answer in time leaves its pairs
    as they were."""
    plan = probe_plan(probe_targets(), involving=set(involving) if involving is not None else None,
                      among=set(among) if among is not None else None)
    if not plan:
        return 0
    commands = [Command(src, {"type": "probe", "targets": [t.frame() for t in dsts], "timeout": timeout})
                for src, dsts in plan.items()]
    stored = 0
    for reply in commands_send(commands, timeout=timeout + REPLY_MARGIN):
        if not reply.ok:
            logger.warning("daemon %s refused to probe: %s", reply.daemon_id, reply.reason)
            continue
        stored += reachability_store(src_id=reply.daemon_id, targets=plan[reply.daemon_id],
                                     results=reply.frame.get("results"))
    return stored


def _text(value: Any, limit: int = 300) -> str:
    return str(value or "")[:limit]


def reachability_store(*, src_id: int, targets: list[Target], results: Any) -> int:
    """One daemon's `probe` reply: a row per target it was asked about and answered for
    (results naming other daemons are ignored: a daemon reports on what it was asked)."""
    asked = {t.daemon_id: t for t in targets}
    now = timezone.now()
    rows: dict[int, Reachability] = {}
    for r in results if isinstance(results, list) else []:
        target = asked.get(r.get("daemon")) if isinstance(r, dict) else None
        if target is None:
            continue
        tcp, udp = r.get("tcp") is True, r.get("udp") is True
        ms = r.get("tcp_ms")
        error = "" if tcp and udp else (f"TCP: {_text(r.get('tcp_error'))}" if not tcp
                                        else f"UDP: {_text(r.get('udp_error'))}")
        rows[target.daemon_id] = Reachability(
            src_id=src_id, dst_id=target.daemon_id, tcp=tcp, udp=udp,
            status=Reachability.Status.DIRECT if tcp else Reachability.Status.NONE,
            tcp_ms=float(ms) if tcp and isinstance(ms, (int, float)) and not isinstance(ms, bool) else None,
            error=error[:300], address=f"{target.ip}:{target.port}", measured_at=now)
    if not rows:
        return 0
    with transaction.atomic():
        Reachability.objects.bulk_create(
            rows.values(), update_conflicts=True, unique_fields=["src", "dst"],
            update_fields=["status", "tcp", "udp", "tcp_ms", "error", "address", "measured_at"])
    return len(rows)


HELLOS_KEY = "splaylab:reach:hellos"  # daemons whose hello awaits a probe round (a Redis set)
ROUND_KEY = "splaylab:reach:round"  # set while a round is queued: later hellos join it
REDIS_TIMEOUT = 2.0  # seconds: a Redis away costs a measure, never a hung hello
ROUND_LOST_AFTER = 60  # seconds: a round whose task was lost (worker killed) stops holding others


def _redis() -> Any:
    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=REDIS_TIMEOUT, socket_connect_timeout=REDIS_TIMEOUT)


def reachability_probe_soon(*, involving: list[int] | None = None, among: list[int] | None = None) -> bool:
    """Queue a probe (Celery), False when Redis or the broker is away: a measure is never worth
    failing a hello or a request for. Hellos (`involving`) share one round: 200 daemons
    reconnecting to a restarted controller cost one task, not 200 tasks each holding a worker
    for up to a probe timeout while jobs wait to be scheduled."""
    from .tasks import reachability_probe_task

    try:
        if involving is not None:
            r = _redis()
            r.sadd(HELLOS_KEY, *involving)
            if not r.set(ROUND_KEY, "1", nx=True, ex=ROUND_LOST_AFTER):
                return True  # a round is queued and not started: it takes these too
            kwargs: dict[str, Any] = {"hellos": True}
        else:
            kwargs = {"among": among}
        reachability_probe_task.apply_async(kwargs=kwargs, countdown=SOON)
    except Exception as exc:  # noqa: BLE001 - redis and kombu raise several kinds for a server away
        logger.warning("reachability probe not queued: %s: %s", type(exc).__name__, exc)
        return False
    return True


def hellos_take() -> list[int]:
    """The daemons whose hellos the round about to run covers. The round's mark goes first: a
    hello after it queues the next round, one before it is in the set taken here."""
    r = _redis()
    r.delete(ROUND_KEY)
    ids = r.spop(HELLOS_KEY, r.scard(HELLOS_KEY) or 1) or []
    return sorted(int(i) for i in ids)


def reachability_rows(*, daemon_ids: Iterable[int]) -> list[Reachability]:
    """The pairs with both ends among `daemon_ids` (a viewer's daemons), with both names."""
    ids = list(daemon_ids)
    return list(Reachability.objects.filter(src_id__in=ids, dst_id__in=ids).select_related("src", "dst"))


def unreachable_pairs(daemon_ids: Iterable[int]) -> list[tuple[int, int, str]]:
    """Measured failures among `daemon_ids`: (src, dst, why), by ids; src == dst: a daemon whose
    nodes cannot reach each other at its own address."""
    ids = list(daemon_ids)
    return list(Reachability.objects.filter(src_id__in=ids, dst_id__in=ids, status=Reachability.Status.NONE)
                .order_by("src_id", "dst_id").values_list("src_id", "dst_id", "error"))
