"""Instructors' actions on daemons (issue 8): create, revoke, rotate a key, drain, and the
blacklist of addresses no node may reach.

A revoked or rotated key must stop working at once: besides the row change (the consumer
refuses the key at hello), the connected consumer is told on the channel layer with
`{"type": "daemon.revoke", "reason": ...}` (DaemonConsumer.daemon_revoke sends `refused`
and closes with 4001). Blacklist changes are pushed to every ONLINE daemon as a `blacklist`
command (fire and forget: a daemon that misses it gets the list again in its next welcome).
"""
from __future__ import annotations

import functools
import ipaddress
import logging
import socket

from asgiref.sync import async_to_sync
from channels.layers import DEFAULT_CHANNEL_LAYER, channel_layers
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from .commands import Command, commands_send
from .models import BlacklistEntry, Daemon, daemon_key_generate, daemon_key_hash
from .services import daemon_create_or_rekey

logger = logging.getLogger(__name__)

REVOKED = "daemon key revoked"
ROTATED = "daemon key rotated"


async def _send(channel_name: str, message: dict) -> None:
    layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)  # one per call, as daemons.commands
    try:
        await layer.send(channel_name, message)
    finally:
        await layer.close_pools()


def _refuse_connected(channel_name: str, reason: str) -> None:
    """Tell the daemon's current consumer (if any) to refuse it now."""
    if not channel_name:
        return
    try:
        async_to_sync(_send)(channel_name, {"type": "daemon.revoke", "reason": reason})
    except Exception:  # the row change already refuses the key at the next hello
        logger.exception("could not reach the consumer of a revoked daemon")


def daemon_create(*, name: str, max_instances: int, port_lo: int, port_hi: int) -> tuple[Daemon, str]:
    """A new daemon and its key (shown once; only its hash is stored). A taken name is an
    error here (re-keying an existing daemon is daemon_key_rotate)."""
    if Daemon.objects.filter(name=name).exists():
        raise ValidationError({"name": [f"a daemon named {name!r} exists already"]})
    if port_lo > port_hi:
        raise ValidationError({"port_hi": ["must be at least port_lo"]})
    return daemon_create_or_rekey(name=name, max_instances=max_instances, port_lo=port_lo, port_hi=port_hi)


def daemon_revoke(*, daemon: Daemon) -> Daemon:
    """Its key is refused from now on (also by a connected daemon, at once); its session ends
    at the next hello. Rotating the key admits it again."""
    with transaction.atomic():
        daemon = Daemon.objects.select_for_update().get(id=daemon.id)
        channel = daemon.channel_name
        daemon.revoked_at = timezone.now()
        daemon.session = ""
        daemon.save(update_fields=["revoked_at", "session"])
    _refuse_connected(channel, REVOKED)
    return daemon


def daemon_key_rotate(*, daemon: Daemon) -> tuple[Daemon, str]:
    """A new key (returned once); the old one stops working, a connected daemon is refused at
    once and must be restarted with the new key. Clears a revocation."""
    key = daemon_key_generate()
    with transaction.atomic():
        daemon = Daemon.objects.select_for_update().get(id=daemon.id)
        channel = daemon.channel_name
        daemon.key_hash = daemon_key_hash(key)
        daemon.revoked_at = None
        daemon.session = ""
        daemon.save(update_fields=["key_hash", "revoked_at", "session"])
    _refuse_connected(channel, ROTATED)
    return daemon, key


def daemon_drain(*, daemon: Daemon) -> Daemon:
    """No new jobs on it; what runs there continues."""
    Daemon.objects.filter(id=daemon.id).update(drained=True)
    daemon.refresh_from_db()
    return daemon


def daemon_undrain(*, daemon: Daemon) -> Daemon:
    Daemon.objects.filter(id=daemon.id).update(drained=False)
    daemon.refresh_from_db()
    return daemon


def address_normalize(address: str) -> str:
    """"10.0.0.1" or "192.168.7.0/24" (IPv4 or IPv6), normalized; host bits of a CIDR are
    cleared ("10.1.2.3/8" -> "10.0.0.0/8"). ValueError says why not."""
    text = address.strip()
    if not text:
        raise ValueError("an IP address or CIDR is required")
    try:
        if "/" not in text:
            return str(ipaddress.ip_address(text))
        network = ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise ValueError(f"{text!r} is not an IP address or CIDR (e.g. 10.0.0.1 or 192.168.7.0/24)") from None
    if network.prefixlen == 0:
        raise ValueError(f"{text} would block every address")
    return str(network)


@functools.lru_cache(maxsize=1)
def controller_addresses() -> tuple[str, ...]:
    """The controller's own addresses, which nodes must not reach: every address this host's
    name resolves to (getaddrinfo(gethostname())) and the IP literals of ALLOWED_HOSTS, without
    loopback and unspecified addresses (the nodes of a one-host deployment talk to each other on
    127.0.0.1; there the daemons' node policy, the job's own ports only, keeps them off the
    controller). Computed once per process."""
    found: list[str] = []
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None)
    except OSError:
        infos = []
    candidates = [info[4][0] for info in infos]
    candidates += [h.strip("[]") for h in settings.ALLOWED_HOSTS]
    for text in candidates:
        try:
            ip = ipaddress.ip_address(str(text).split("%", 1)[0])
        except ValueError:
            continue  # a name or "*"
        if ip.is_loopback or ip.is_unspecified or ip.is_link_local:
            continue
        if str(ip) not in found:
            found.append(str(ip))
    return tuple(found)


def blacklist_addresses() -> list[str]:
    """What every daemon gets (welcome's `blacklist` and `blacklist` commands):
    SPLAYLAB_BLACKLIST, then controller_addresses(), then the instructors' entries; each once.
    A controller address that a daemon advertises for its nodes (a daemon on the controller's
    own host) is left out: nodes there must reach each other on it, and the node policy (a
    job's own ports only) already keeps them off the controller's services."""
    nodes_use = set(Daemon.objects.exclude(ip__isnull=True).values_list("ip", flat=True))
    out: list[str] = []
    for text in [*settings.SPLAYLAB_BLACKLIST, *(a for a in controller_addresses() if a not in nodes_use),
                 *BlacklistEntry.objects.values_list("address", flat=True)]:
        if text and text not in out:
            out.append(text)
    return out


def blacklist_push() -> None:
    """Every ONLINE daemon gets the new list (fire and forget)."""
    addresses = blacklist_addresses()
    online = Daemon.objects.filter(state=Daemon.State.ONLINE, revoked_at__isnull=True).values_list("id", flat=True)
    commands_send([Command(d, {"type": "blacklist", "addresses": addresses}) for d in online], timeout=0)


def blacklist_add(*, address: str, note: str = "") -> BlacklistEntry:
    try:
        normalized = address_normalize(address)
    except ValueError as e:
        raise ValidationError({"address": [str(e)]}) from None
    if BlacklistEntry.objects.filter(address=normalized).exists():
        raise ValidationError({"address": [f"{normalized} is on the blacklist already"]})
    entry = BlacklistEntry.objects.create(address=normalized, note=note)
    transaction.on_commit(blacklist_push)
    return entry


def blacklist_remove(*, entry: BlacklistEntry) -> None:
    entry.delete()
    transaction.on_commit(blacklist_push)
