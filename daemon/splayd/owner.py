"""The owner's side of a job request (docs/architecture.md, "Owner's limits"): ceilings sent in
hello, the limits a register/list asks checked against them (refusals start with a SPLAY-style
code: INVALID_MEM, INVALID_CPU, INVALID_NET, ...), the bandwidth cap, and the controller's
blacklist entries. Pure functions of the Config and the command."""
from __future__ import annotations

import ipaddress
from typing import Any

from .config import MB, Config
from .instances import Limits, fmt_size
from .jobspec import CommandError, netmodel_module, runtime_limits


def ceilings(cfg: Config) -> dict[str, int]:
    """The owner's limits (hello's "limits"): the controller may ask less, never more."""
    return {"max_mem_mb": cfg.max_mem_mb, "max_cpu_seconds": cfg.max_cpu_seconds,
            "disk_max_size_mb": cfg.disk_max_size_mb, "disk_max_files": cfg.disk_max_files,
            "max_sockets": cfg.max_sockets, "max_send_mb": cfg.max_send_mb,
            "max_receive_mb": cfg.max_receive_mb, "nice": cfg.nice,
            "max_bandwidth_kbps": cfg.max_bandwidth_kbps,
            "log_lines_per_second": cfg.log_lines_per_second, "log_max_size_mb": cfg.log_max_size_mb}


def request_limits(cfg: Config, cmd: dict[str, Any]) -> Limits:
    """The Limits a register (or list) asks, within the owner's ceilings; what it does not ask
    is the ceiling."""
    max_mem = cmd.get("max_mem")
    max_cpu = cmd.get("max_cpu")
    duration = cmd.get("duration")
    if not (isinstance(max_mem, int) and not isinstance(max_mem, bool) and max_mem > 0):
        max_mem = cfg.max_mem_bytes  # not asked: the ceiling
    elif max_mem > cfg.max_mem_bytes:
        raise CommandError(f"INVALID_MEM: asked {fmt_size(max_mem)} per node, "
                           f"this daemon allows {fmt_size(cfg.max_mem_bytes)}")
    if not (isinstance(max_cpu, int) and not isinstance(max_cpu, bool) and max_cpu > 0):
        max_cpu = cfg.max_cpu_seconds
    elif max_cpu > cfg.max_cpu_seconds:
        raise CommandError(f"INVALID_CPU: asked {max_cpu} s of CPU per node, "
                           f"this daemon allows {cfg.max_cpu_seconds} s")
    runtime = runtime_limits(cfg, cmd.get("limits"))
    return Limits(
        max_mem=max_mem,
        max_cpu=max_cpu,
        max_open_files=cfg.max_open_files,
        # RLIMIT_FSIZE caps one file; never above the whole directory's quota.
        max_file_size=min(cfg.max_file_size_mb * MB, runtime["disk_max_size"]),
        duration=float(duration) if isinstance(duration, (int, float)) and duration > 0 else None,
        disk_max_size=runtime["disk_max_size"],
        disk_max_files=runtime["disk_max_files"],
        log_lines_per_second=cfg.log_lines_per_second,
        runtime=runtime,
        nice=cfg.nice,
    )


def network_within_bandwidth(cfg: Config, network: Any, total_nodes: int, job_id: int) -> Any:
    """The job's emulated network under the owner's `max_bandwidth_kbps`: a job asking a
    higher bandwidth is refused (INVALID_NET); one asking none (or no network at all) is
    emulated at that rate, each node's sends shaped by the runtime's netem token bucket."""
    cap_kbps = cfg.max_bandwidth_kbps
    if not cap_kbps:
        return network
    if network is None:
        network = {"options": {"net": "lan"}, "seed": job_id, "nodes": total_nodes}
    if not isinstance(network, dict) or not isinstance(network.get("options"), dict):
        return network  # compile_network refuses it with its own reason
    netmodel = netmodel_module(cfg.sandbox_dir)
    asked = network["options"].get("bandwidth")
    if asked:
        try:
            rate = netmodel.parse_rate(str(asked))
        except netmodel.NetModelError:
            return network  # likewise
        if rate * 8 / 1000 > cap_kbps:
            raise CommandError(f"INVALID_NET: asked a bandwidth of {asked} per node, this daemon "
                               f"allows {cap_kbps} kbit/s")
        return network
    return {**network, "options": {**network["options"], "bandwidth": f"{cap_kbps}kbit"}}


def parse_blacklist(addresses: Any) -> list[str]:
    """IP addresses and networks (CIDR), normalized ("10.0.0.1", "192.168.7.0/24"); a bad
    entry raises CommandError naming it."""
    if not isinstance(addresses, list):
        raise CommandError(f"addresses: expected a list of IP addresses or networks, got {addresses!r}")
    out: list[str] = []
    for a in addresses:
        if not isinstance(a, str):
            raise CommandError(f"addresses: {a!r} is not an IP address or network")
        try:
            net = ipaddress.ip_network(a.strip(), strict=False)
        except ValueError:
            raise CommandError(f"addresses: {a!r} is not an IP address or network") from None
        text = str(net.network_address) if net.num_addresses == 1 else str(net)
        if text not in out:
            out.append(text)
    return out
