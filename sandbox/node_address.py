"""The address a node is reached on (docs/decisions.md, "One address per node"). Standard
library only: shared by the controller (the node list it sends), the local runner, the
simulator and the tests.

A node whose host is this machine's loopback (a daemon advertising 127.x.y.z or ::1, the local
runner, a simulation) gets a loopback address of its own, made from its first port:

    node_ip("127.0.0.1", 20001) == "127.1.78.33"      # 127.1.<port // 256>.<port % 256>

Linux routes all of 127.0.0.0/8 to `lo`, so binding it needs no setup. Two nodes alive at once
never share a first port on one host (a port is bound by one node, and the daemons of one host
have disjoint port ranges), hence never an address, with no state to keep; 127.0.0.0/16 (the
host's services on 127.0.0.1, 127.0.0.53, 127.0.1.1...) is never used. A node on another host
(a daemon advertising a routable address) is reached on that address: nodes of one daemon share
it and differ by port, as on SPLAY.
"""
from __future__ import annotations

import ipaddress

NODE_LOOPBACK_OCTET = 1  # the second octet of every per-node loopback address


def node_ip(host_ip: str, port: int) -> str:
    """The ip of the node whose first port is `port` on a host advertised as `host_ip`:
    a loopback address of its own when the host is loopback, else the host's address.
    ValueError names a bad host address or port."""
    try:
        host = ipaddress.ip_address(str(host_ip).strip())
    except ValueError:
        raise ValueError(f"host ip {host_ip!r} is not an IP address") from None
    if not host.is_loopback:
        return str(host)
    if not isinstance(port, int) or not 1 <= port <= 65535:
        raise ValueError(f"node port {port!r} is not a port number (1-65535)")
    return f"127.{NODE_LOOPBACK_OCTET}.{port >> 8}.{port & 0xFF}"
