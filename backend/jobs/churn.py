"""Churn on the service (docs/churn.md, "On the service"): a job's scenario compiled into
per-daemon timelines, the churn events daemons report, and keep-population replacements.

The scenario is scheduled by sandbox/churn/ with a fixed seed (CHURN_SEED), so every job of
one scenario meets the very same dynamics (the point of SPLAY's churn manager), and what the
instructor's preview drew is what runs."""
from __future__ import annotations

import math
from typing import Any

from rest_framework.exceptions import ValidationError

from lib.churn_preview import churn, churn_load

CHURN_SEED = 1
SPARE_SHARE = 0.25  # keep_population: spare slots per node of the peak population (SPLAY's superset)
# t = 0 is at least LEAD_MIN after START is sent (every daemon has it by then), and more when a
# daemon has many early joins: it starts one node process in about NODE_START seconds (21 ms
# measured with bubblewrap, docs/churn.md), at most LEAD_MAX (the daemons' own cap).
LEAD_MIN, LEAD_MAX = 0.5, 10.0
NODE_START = 0.025


def plan_load(text: str) -> Any:
    """The scenario's schedule (churn.Schedule); a 400 on `churn` naming line and column."""
    _, plan, errors = churn_load(text, seed=CHURN_SEED)  # parsed once, within the churn limits
    if plan is None:
        raise ValidationError({"churn": [
            f"line {e['line']}" + (f", column {e['column']}" if e["column"] else "") + f": {e['message']}"
            for e in errors]})
    if plan.nodes == 0:
        raise ValidationError({"churn": ["the scenario never starts a node"]})
    return plan


def spares_for(plan: Any) -> int:
    peak = max((p for _, p in churn.population_steps(plan.events)), default=0)
    return max(1, math.ceil(peak * SPARE_SHARE))


def timelines(plan: Any) -> dict[int, list[list[Any]]]:
    """node → [[t, "join"|"leave", graceful], ...] in time order (the `churn.events` of LIST)."""
    out: dict[int, list[list[Any]]] = {}
    for e in plan.events:
        if e.kind in ("join", "leave"):
            out.setdefault(e.node, []).append([e.t, e.kind, e.graceful])
    return out


def start_lead(joins_per_daemon: list[list[float]]) -> float:
    """Seconds from START to t = 0 such that each daemon, starting its nodes one after another
    from START, has its i-th earliest join's process up by that join's time."""
    lead = LEAD_MIN
    for joins in joins_per_daemon:
        for i, t in enumerate(sorted(joins), start=1):
            lead = max(lead, i * NODE_START - t)
    return round(min(lead, LEAD_MAX), 3)


def remaining(plan: Any, position: int, after: float) -> tuple[bool, list[list[Any]]]:
    """(is the position meant to be up at `after`, its events after that instant)."""
    line = timelines(plan).get(position, [])
    up = False
    for t, kind, _ in line:
        if t <= after:
            up = kind == "join"
    return up, [ev for ev in line if ev[0] > after]


def network_overlay(plan: Any, nodes: int) -> dict[str, list[dict]] | None:
    """The scenario's partitions and loss/latency phases for every node's net block, or None
    when the scenario has no network statement."""
    if not any(e.kind not in ("join", "leave") for e in plan.events):
        return None
    return churn.network_overlay(plan, nodes, CHURN_SEED)
