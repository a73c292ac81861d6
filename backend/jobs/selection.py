"""Which daemons may take a job and how many slots each (SPLAY section 3.1's candidates, issue 8):
the job's ask (jobs.models.Job + its descriptor), each daemon's answer to it (ONLINE, available,
labels, the owner's ceilings in its hello `limits`), `spread` of the wanted slots over the
candidates, and the texts NO_RESOURCES gives when none or too few fit. Used by jobs.scheduling."""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from daemons.models import Daemon
from lib.descriptor import Descriptor
from lib.network import netmodel

from .models import Job

MB = 1024 * 1024

# The daemon's limit name (register/list "limits") -> (its ceiling in hello's "limits", the
# ceiling's unit in bytes or 1, the descriptor key a student wrote).
CEILINGS = {
    "disk_max_size": ("disk_max_size_mb", MB, "disk_max_size"),
    "disk_max_files": ("disk_max_files", 1, "disk_max_files"),
    "max_sockets": ("max_sockets", 1, "network_max_sockets"),
    "max_send": ("max_send_mb", MB, "network_max_send"),
    "max_receive": ("max_receive_mb", MB, "network_max_receive"),
    "log_lines_per_second": ("log_lines_per_second", 1, "log_lines_per_second"),   # output limits
    "log_max_size": ("log_max_size_mb", MB, "log_max_size"),
}


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def size_text(n: float) -> str:
    """Sizes as the daemons write them: "512 MB", "19.1 MB", "512 KB", "100 bytes"."""
    for unit, scale in (("GB", 1024**3), ("MB", MB), ("KB", 1024)):
        if n >= scale:
            return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{int(n)} bytes"


def spread(free: dict[int, int], want: int, order: list[int] | None = None) -> dict[int, int]:
    """Pure: give `want` slots one at a time to the daemon with the most free slots left
    (ties: the earliest in `order`, by default the lowest id), so load evens out across daemons."""
    rank = {d: i for i, d in enumerate(order if order is not None else sorted(free))}
    heap = [(-f, rank.get(d, len(rank) + d), d) for d, f in free.items() if f > 0]
    heapq.heapify(heap)
    out: dict[int, int] = {}
    for _ in range(want):
        if not heap:
            break
        neg, r, d = heapq.heappop(heap)
        out[d] = out.get(d, 0) + 1
        if neg + 1 < 0:
            heapq.heappush(heap, (neg + 1, r, d))
    return out


@dataclass(frozen=True)
class Ask:
    """What a job asks of every daemon, before each daemon's ceilings are applied."""
    max_mem: int | None  # bytes, when the descriptor names it
    limits: dict[str, Any]  # the descriptor's limits (daemon names)
    labels: dict[str, list[str]]  # label -> accepted values
    factor: float  # REGISTER ceil(nodes x factor) slots
    bandwidth: float | None = None  # bytes/s per node, when the job's network names it


def job_ask(job: Job) -> Ask:
    descriptor = Descriptor(values=dict(job.descriptor or {}))
    factor = descriptor.factor if descriptor.factor is not None else settings.SPLAYLAB_SUPERSET
    asked = (job.network or {}).get("bandwidth")
    return Ask(max_mem=descriptor.max_mem, limits=descriptor.limits(), labels=descriptor.daemon_labels,
               factor=max(1.0, float(factor)), bandwidth=netmodel.parse_rate(str(asked)) if asked else None)


def labels_text(labels: dict[str, list[str]]) -> str:
    return ",".join(f"{k}={'|'.join(v)}" for k, v in labels.items())


def ceiling_of(limits: Any, key: str) -> float | None:
    value = limits.get(key) if isinstance(limits, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None  # not reported: the daemon checks it itself
    return value


def daemon_request(ask: Ask, daemon: Daemon) -> tuple[dict[str, Any] | None, str]:
    """Pure: ({max_mem, max_cpu, limits} to send this daemon in register/list, "") or (None,
    why it is not a candidate). A value the descriptor names is asked exactly and a daemon
    whose owner allows less is skipped; one it does not name is min(the controller's default,
    the daemon's ceiling) (disk and network: left out, the daemon fills in its ceiling).
    A ceiling the daemon does not report is not checked here (the daemon refuses)."""
    if daemon.revoked_at is not None:
        return None, "key revoked"
    if daemon.drained:
        return None, "drained by an instructor"
    if not daemon.available:
        return None, "unavailable by their owners' policy"
    labels = daemon.labels if isinstance(daemon.labels, dict) else {}
    if any(str(labels.get(k)) not in values for k, values in ask.labels.items()):
        return None, f"labels {labels_text(ask.labels)} not matched"
    ceilings = daemon.limits
    mem_ceiling = ceiling_of(ceilings, "max_mem_mb")
    if ask.max_mem is not None:
        if mem_ceiling is not None and ask.max_mem > mem_ceiling * MB:
            return None, f"max_mem {size_text(ask.max_mem)} above their owners' limit"
        max_mem = ask.max_mem
    else:
        max_mem = settings.SPLAYLAB_MAX_MEM_MB * MB
        if mem_ceiling is not None:
            max_mem = min(max_mem, int(mem_ceiling * MB))
    max_cpu = settings.SPLAYLAB_MAX_CPU_SECONDS
    cpu_ceiling = ceiling_of(ceilings, "max_cpu_seconds")
    if cpu_ceiling is not None:
        max_cpu = min(max_cpu, int(cpu_ceiling))
    bandwidth_ceiling = ceiling_of(ceilings, "max_bandwidth_kbps")  # 0: no cap
    if ask.bandwidth is not None and bandwidth_ceiling and ask.bandwidth * 8 / 1000 > bandwidth_ceiling:
        return None, f"bandwidth {ask.bandwidth * 8 / 1000:g} kbit/s above their owners' limit"
    for name, value in ask.limits.items():
        if name not in CEILINGS:
            continue
        key, unit, written = CEILINGS[name]
        ceiling = ceiling_of(ceilings, key)
        if ceiling is not None and value > ceiling * unit:
            shown = size_text(value) if unit != 1 else str(value)
            return None, f"{written} {shown} above their owners' limit"
    return {"max_mem": max_mem, "max_cpu": max_cpu, "limits": dict(ask.limits)}, ""


def exclusions_text(excluded: dict[str, int]) -> str:
    """{"drained by an instructor": 2} -> "2 daemons excluded: drained by an instructor"."""
    return "; ".join(f"{plural(n, 'daemon')} excluded: {why}" for why, n in excluded.items())


def log_budget_shares(asked: int | None, counts: dict[int, int],
                      ceilings: dict[int, float | None]) -> dict[int, dict[str, int]]:
    """Pure: each daemon's share of a job spread over several, as `limits` entries
    (`log_max_size`: the bytes it may store, proportional to its nodes; `log_max_size_of_job`:
    the whole, which its "log budget" record names). The whole: the descriptor's
    `log_max_size`, else the smallest ceiling among the daemons (what one daemon would have
    applied). {} for one daemon, or when no daemon reports a ceiling (each applies its own)."""
    if len(counts) < 2:
        return {}
    known = [int(c) for d, c in ceilings.items() if d in counts and c is not None]
    total = asked if asked is not None else (min(known) if known else None)
    if total is None:
        return {}
    nodes = sum(counts.values())
    return {d: {"log_max_size": total * n // nodes, "log_max_size_of_job": total} for d, n in counts.items()}


def reachable_group(free: dict[int, int], order: list[int], cut: set[frozenset[int]]) -> list[int]:
    """Pure: the daemons a job may span when some pairs cannot reach each other (issue 24).
    `cut` holds the pairs with a measured failure in either direction: their nodes could not
    connect one way, so a job never spans both. From each daemon in turn as a seed, add every
    daemon that reaches all those already chosen, most free slots first (ties: `order`); keep
    the group with the most free slots (ties: the earlier seed). Finding the best group is a
    maximum-weight clique, so this is a greedy answer: exact when the cut pairs split the daemons
    into groups that all reach each other (public daemons and their LAN) and only NATed ones
    stand alone. Without a cut pair among them, every daemon in `order`."""
    ids = [d for d in order if free.get(d, 0) > 0]
    if not any(pair <= set(ids) for pair in cut):
        return ids
    rank = {d: i for i, d in enumerate(ids)}
    ranked = sorted(ids, key=lambda d: (-free[d], rank[d]))
    best: list[int] = []
    best_total = -1
    for seed in ranked:
        group = [seed]
        for d in ranked:
            if d != seed and all(frozenset((d, g)) not in cut for g in group):
                group.append(d)
        total = sum(free[d] for d in group)
        if total > best_total:
            best, best_total = group, total
    return sorted(best, key=rank.__getitem__)


MAX_PAIRS_SHOWN = 6


def unreachable_text(pairs: list[tuple[str, str, str]]) -> str:
    """[(src name, dst name, why)] -> "lab-1 cannot reach lab-3 (TCP: no answer within 2 s); ...",
    the first MAX_PAIRS_SHOWN and how many more."""
    shown = [f"{src} cannot reach {dst}" + (f" ({why})" if why else "") for src, dst, why in pairs[:MAX_PAIRS_SHOWN]]
    more = len(pairs) - MAX_PAIRS_SHOWN
    return "; ".join(shown) + (f"; and {plural(more, 'more pair')}" if more > 0 else "")
