"""What a local run (sandbox/run_local.py, and its Docker backend run_docker.py) sets up before
its nodes start: free ports on this machine and each node's job.json.
"""
from __future__ import annotations

import argparse
import random
import socket
import sys
from pathlib import Path
from typing import Any

SANDBOX = Path(__file__).resolve().parent
PORT_RANGE = (20000, 60000)


def node_port_range() -> tuple[int, int]:
    """PORT_RANGE minus the kernel's ephemeral ports: an outgoing connection of one node must
    not take the port another node is about to bind (seen once in 500-node runs)."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return PORT_RANGE
    if low - PORT_RANGE[0] >= 4000:
        return PORT_RANGE[0], min(PORT_RANGE[1], low)
    return PORT_RANGE


def free_port_base(n: int, host: str = "0.0.0.0", tries: int = 50) -> int:
    """A base port b such that b .. b+n-1 are free for TCP and UDP on host (the default, every
    address: a port that any loopback address holds, e.g. another run's node, is not free)."""
    rng = random.Random()
    for _ in range(tries):
        lo, hi = node_port_range()
        base = rng.randrange(lo, max(lo + 1, hi - n))
        held: list[socket.socket] = []
        try:
            for port in range(base, base + n):
                for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                    s = socket.socket(socket.AF_INET, kind)
                    held.append(s)
                    s.bind((host, port))
            return base
        except OSError:
            continue
        finally:
            for s in held:
                s.close()
    raise RuntimeError(f"no {n} consecutive free ports found on {host}")


def local_nodes(n: int) -> list[dict[str, Any]]:
    """The N nodes of a local run: consecutive free ports, and a loopback address of its own
    for each node (node_address.py), as a daemon on this machine gives its nodes."""
    if str(SANDBOX) not in sys.path:
        sys.path.insert(0, str(SANDBOX))
    from node_address import node_ip
    base = free_port_base(n)
    return [{"ip": node_ip("127.0.0.1", base + i), "port": base + i} for i in range(n)]


def job_spec(args: argparse.Namespace, nodes: list[dict[str, Any]], k: int) -> dict[str, Any]:
    if str(SANDBOX) not in sys.path:
        sys.path.insert(0, str(SANDBOX))
    import simulate  # sandbox/simulate.py: bootstrap_list, one reading for live and simulated runs
    list_type, list_size = getattr(args, "list_type", "head"), getattr(args, "list_size", 0)
    listed = simulate.bootstrap_list(nodes, list_type, list_size, args.seed or 0, k)
    job = {"me": nodes[k - 1], "nodes": listed, "all_nodes": nodes,
           "position": k, "job_id": 0, "duration": args.time, "list_type": list_type, "list_size": list_size}
    if args.seed is not None:
        job["seed"] = args.seed
    if getattr(args, "net_blocks", None):
        job["net"] = args.net_blocks[k - 1]
        job["net_epoch"] = args.net_epoch
    if getattr(args, "trace", False):
        job["trace"] = {"max_events": args.trace_max, "learn": bool(getattr(args, "trace_learn", False))}
    if getattr(args, "harness", None):
        job["harness"] = "harness.lua"   # copied into the node's directory beside app.lua
    return job
