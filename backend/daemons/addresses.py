"""The address a daemon's nodes are reached on, decided at hello (docs/decisions.md, "A
daemon's address").

hello's `ip` is a claim; the connection's peer address (scope["client"]) is what the
controller saw. The rule:
1. A claim must be a unicast IP literal, else the hello is refused.
2. From a loopback peer (a daemon on the controller's host) or a peer in
   SPLAYLAB_DAEMON_TRUSTED_PEERS (e.g. a NAT gateway in front of a lab whose daemons advertise
   their private addresses), the claim is taken; from any other peer the peer's address is
   taken and a differing claim is ignored (logged).
3. The address taken must not be on the blacklist (SPLAYLAB_BLACKLIST, the instructors'
   entries): refused.
4. It must not be one of the controller's own addresses unless the daemon really connects from
   there (the peer is that address, or loopback): refused. So no daemon can take a controller
   address out of the blacklist (daemons.actions.blacklist_addresses leaves out the addresses
   daemons advertise) from another host.
"""
from __future__ import annotations

import ipaddress
import logging
from dataclasses import dataclass

from django.conf import settings

from .actions import controller_addresses
from .models import BlacklistEntry

logger = logging.getLogger(__name__)

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class AddressRefused(Exception):
    """The hello's address is not acceptable; the message says why (sent in `refused`)."""


@dataclass(frozen=True)
class HelloAddress:
    address: str
    claimed: str  # what the hello said ("" if nothing)
    peer: str  # what the connection came from ("" if unknown)


def _ip(text: str) -> Address:
    ip = ipaddress.ip_address(text.strip().split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped  # a dual-stack socket's view of an IPv4 peer
    return ip


def _in_any(ip: Address, entries: list[str]) -> str | None:
    for entry in entries:
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return entry
        except ValueError:
            continue
    return None


def _trusted_peer(peer: Address | None) -> bool:
    if peer is None or peer.is_loopback:
        return True
    return _in_any(peer, list(settings.SPLAYLAB_DAEMON_TRUSTED_PEERS)) is not None


def hello_address(*, claimed: object, peer: str | None) -> HelloAddress:
    """The address to record for a daemon whose hello claims `claimed` on a connection from
    `peer` (None: unknown, as in tests); AddressRefused says why none is acceptable."""
    claim_text = claimed.strip() if isinstance(claimed, str) else ""
    if claimed not in (None, "") and not claim_text:
        raise AddressRefused(f"hello ip {claimed!r} is not an IP address")
    claim: Address | None = None
    if claim_text:
        try:
            claim = _ip(claim_text)
        except ValueError:
            raise AddressRefused(f"hello ip {claim_text!r} is not an IP address") from None
        if claim.is_unspecified or claim.is_multicast:
            raise AddressRefused(f"hello ip {claim} is not the address of one host")
    peer_ip: Address | None = None
    if peer:
        try:
            peer_ip = _ip(peer)
        except ValueError:  # a unix socket path or the like: nothing to check against
            peer_ip = None
    if claim is not None and (claim == peer_ip or _trusted_peer(peer_ip)):
        address = claim
    elif peer_ip is not None:
        address = peer_ip
        if claim is not None:
            logger.warning("a daemon claims ip %s but connects from %s: its nodes get %s "
                           "(SPLAYLAB_DAEMON_TRUSTED_PEERS lets a gateway's daemons claim theirs)",
                           claim, peer_ip, peer_ip)
    else:
        address = ipaddress.ip_address("127.0.0.1")
    entry = _in_any(address, [*settings.SPLAYLAB_BLACKLIST,
                              *BlacklistEntry.objects.values_list("address", flat=True)])
    if entry is not None:
        raise AddressRefused(f"daemon address {address} is blacklisted ({entry}): no node may reach it")
    same_host = peer_ip is None or peer_ip.is_loopback or address == peer_ip
    if str(address) in controller_addresses() and not same_host:
        raise AddressRefused(f"hello ip {address} is one of the controller's addresses, "
                             f"but this daemon connects from {peer_ip}")
    return HelloAddress(str(address), claim_text, str(peer_ip) if peer_ip is not None else "")
