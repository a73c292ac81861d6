"""The controller's side of the node relay (issue 24; the relay itself: daemon/splayd/relay.py):
what it signs and hands out, and which daemons may be joined through it.

- welcome's "relay" block: the URL to dial and a link token (HMAC of the daemon id and an
  expiry, SPLAYLAB_RELAY_SECRET), handed only to a daemon whose hello was accepted, so the
  link is authenticated as the daemon is.
- `list`'s "relay" block per daemon: its ticket (the job addresses it hosts, every port of each
  node's range, signed), and the peers it cannot reach (measured none from it to their daemon),
  which its runtime connects to through the relay.
- placement: a pair measured unreachable may share a job when a relay is configured and both
  daemons speak protocol 3 and say their link to it is up (heartbeat "relay", Daemon.relay_up).
The signatures are splayd.relay's (link_token, ticket_mac), written again here because the
controller does not import the daemon package; a test checks that both agree."""
from __future__ import annotations

import hashlib
import hmac
import time
from typing import Any

from django.conf import settings

SHORTCUT_PROTOCOL = 2  # splayd's protocol from which its own nodes reach each other over 127.0.0.1
RELAY_PROTOCOL = 3  # splayd's protocol from which it keeps a relay link


def _mac(text: str) -> str:
    return hmac.new(settings.SPLAYLAB_RELAY_SECRET.encode(), text.encode(), hashlib.sha256).hexdigest()


def link_token(daemon: int, expires: int) -> str:
    return _mac(f"link:{int(daemon)}:{int(expires)}")


def ticket_mac(daemon: int, job: int, addrs: list[str]) -> str:
    return _mac(f"ticket:{int(daemon)}:{int(job)}:" + ",".join(sorted(addrs)))


def enabled() -> bool:
    return bool(settings.SPLAYLAB_RELAY_URL and settings.SPLAYLAB_RELAY_SECRET)


def welcome_block(daemon: int, version: int) -> dict[str, Any] | None:
    if not enabled() or version < RELAY_PROTOCOL:
        return None
    expires = int(time.time()) + settings.SPLAYLAB_RELAY_TOKEN_TTL
    return {"url": settings.SPLAYLAB_RELAY_URL, "daemon": daemon, "expires": expires,
            "token": link_token(daemon, expires)}


def relay_capable(versions: dict[int, int]) -> set[int]:
    """{daemon id: protocol version} of daemons whose link is up -> those whose pairs the relay
    may carry."""
    if not enabled():
        return set()
    return {d for d, v in versions.items() if v >= RELAY_PROTOCOL}


def list_blocks(job: int, placed: list[tuple[int, int, str]], nb_ports: int,
                cut: set[tuple[int, int]]) -> dict[int, dict[str, Any]]:
    """placed: [(daemon, port, ip)] per node in node order; cut: (src, dst) daemon pairs measured
    unreachable from src to dst. -> {daemon: list's "relay" block}, for the daemons that have a
    peer to relay to or that such a peer must reach (both ends hold a ticket)."""
    involved = {a for a, b in cut} | {b for a, b in cut}
    blocks: dict[int, dict[str, Any]] = {}
    for d in sorted(involved):
        addrs = [f"{ip}:{port + k}" for dd, port, ip in placed if dd == d for k in range(max(1, nb_ports))]
        peers = [{"ip": ip, "port": port} for dd, port, ip in placed if (d, dd) in cut]
        blocks[d] = {"addrs": addrs, "mac": ticket_mac(d, job, addrs), "peers": peers}
    return blocks


def relay_welcome(daemon: int, version: Any) -> dict[str, Any]:
    """welcome's extra fields: {"relay": block} for a relay-capable daemon, else none."""
    try:
        v = int(version)
    except (TypeError, ValueError):
        return {}
    block = welcome_block(daemon, v)
    return {"relay": block} if block else {}
