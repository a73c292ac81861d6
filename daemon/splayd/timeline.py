"""A churn job's scenario on this daemon (docs/churn.md, "On the service"): its nodes' joins and
leaves as `list` and `join` carry them, checked, in the order the daemon dispatches them.
jobs.py runs them (JobManager._run_timeline and the churn helpers)."""
from __future__ import annotations

import asyncio
import heapq
import math
import time
from dataclasses import dataclass, field
from typing import Any

from .jobspec import CommandError

JOIN_PRESTART = 2.0  # seconds before its instant a join's process starts, held at its gate


@dataclass
class Timeline:
    """A churn job's scenario on this daemon: its nodes' joins and leaves, run against this
    daemon's clock from t = 0 (`start` + its `lead`). Listed nodes without events are spares,
    started only by a `join` command (keep_population).

    A join is dispatched JOIN_PRESTART early (never before its node's previous event): its
    process starts and loads the runtime, then waits at a gate that the daemon opens at the
    planned instant, so the time a process takes to start is not in the join's error."""
    events: list[tuple[float, float, int, str, bool]]  # heap of (due, t, node, "join" | "leave", graceful)
    end: float | None  # the scenario's `stop`
    t0: float | None = None  # time.monotonic() of t = 0, once started
    epoch: float | None = None  # the same instant on the wall clock
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    plays: dict[int, int] = field(default_factory=dict)  # spare node -> the position it plays
    spares: set[int] = field(default_factory=set)  # listed nodes without events of their own
    chains: dict[int, asyncio.Task[None]] = field(default_factory=dict)  # node -> its latest event's task
    joining: set[int] = field(default_factory=set)  # nodes whose join is dispatched, not yet done
    ended: bool = False  # the scenario ended or the job was stopped
    ended_as: tuple[str, str] | None = None  # evicted: the (state, reason) of joins still starting

    def now(self) -> float:
        return time.monotonic() - (self.t0 or time.monotonic())

    def rejoins(self, node: int) -> bool:
        return node in self.joining or any(n == node and kind == "join" for _, _, n, kind, _ in self.events)

    def close(self) -> None:
        """No more events: the scenario ended or the job was stopped (joins still starting kill
        their node once it runs)."""
        self.events.clear()
        self.ended = True
        if self.task is not None:
            self.task.cancel()

    def add(self, events: list[tuple[float, int, str, bool]]) -> None:
        for ev in dispatch_order(events, after=self.last_t(events[0][1]) if events else None):
            heapq.heappush(self.events, ev)
        self.wake.set()

    def last_t(self, node: int) -> float | None:
        return max((t for _, t, n, _, _ in self.events if n == node), default=None)


def dispatch_order(events: list[tuple[float, int, str, bool]],
                   after: float | None = None) -> list[tuple[float, float, int, str, bool]]:
    """(due, t, node, kind, graceful) of one node's events: a join is due JOIN_PRESTART before
    its time but not before the node's previous event (its leave must be done first); ties
    keep the order of t."""
    out = []
    previous = after
    for t, node, kind, graceful in sorted(events):
        due = t
        if kind == "join":
            due = t - JOIN_PRESTART if previous is None else max(t - JOIN_PRESTART, previous)
        out.append((due, t, node, kind, graceful))
        previous = t
    return out


def parse_churn_events(node: int, raw: Any) -> list[tuple[float, int, str, bool]]:
    """[[t, "join" | "leave", graceful], ...] of one node (LIST's churn.events, join's events)."""
    if not isinstance(raw, list):
        raise CommandError(f"churn: events of node {node}: expected a list")
    out = []
    for ev in raw:
        if not (isinstance(ev, list) and len(ev) == 3 and isinstance(ev[0], (int, float))
                and not isinstance(ev[0], bool) and math.isfinite(ev[0]) and ev[0] >= 0
                and ev[1] in ("join", "leave")):
            raise CommandError(f"churn: node {node}: expected [t >= 0, 'join' | 'leave', graceful], got {ev!r}")
        out.append((float(ev[0]), node, str(ev[1]), bool(ev[2])))
    return out


def parse_timeline(churn: Any, listed: dict[int, int]) -> Timeline:
    if not isinstance(churn, dict) or not isinstance(churn.get("events"), dict):
        raise CommandError("churn: expected {events: {node: [[t, kind, graceful], ...]}, end}")
    end = churn.get("end")
    if end is not None and (not isinstance(end, (int, float)) or isinstance(end, bool) or end < 0):
        raise CommandError(f"churn.end: expected a number of seconds or null, got {end!r}")
    events: list[tuple[float, float, int, str, bool]] = []
    for key, raw in churn["events"].items():
        node = int(key) if str(key).isdigit() else 0
        if node not in listed:
            raise CommandError(f"churn: node {key} is not listed on this daemon")
        events += dispatch_order(parse_churn_events(node, raw))
    heapq.heapify(events)
    return Timeline(events=events, end=float(end) if end is not None else None,
                    spares=set(listed) - {n for _, _, n, _, _ in events})
