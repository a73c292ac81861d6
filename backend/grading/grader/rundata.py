"""One grading run's records and the facts checks derive from them (docs/grading.md, "What the
grader trusts").

Trusted sources only, unless a check says otherwise:
- the runner's own records: `exit` (how each node ended), `churn` (joins and leaves);
- the harness's records (`probe`, written through its capability): node_state, lookups, ...;
- the runtime's message trace (`trace` rows, docs/trace.md): messages, bytes, peers, and the
  messages of each operation the harness ran.
The app's own records (`metric`, `log`) are kept for display and for checks that opt in
(`app_metric`), never read by the trusted checks.
"""
from __future__ import annotations

import bisect
import math
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from .errors import CheckError
from .trace_tally import CALLS, CONTACTS, NodeTraffic, Operation, TraceTally

__all__ = ["CALLS", "CONTACTS", "NodeTraffic", "Operation", "RunData", "TraceTally", "owner", "percentile", "stat"]


def percentile(values: list[float], p: float) -> float:
    """Nearest rank: the smallest value with at least p % of the values at or below it."""
    s = sorted(values)
    if not s:
        raise ValueError("no values")
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


def stat(values: list[float], name: str) -> float:
    if name == "count":
        return float(len(values))
    if not values:
        raise ValueError("no values")
    if name == "mean":
        return sum(values) / len(values)
    if name == "min":
        return min(values)
    if name == "max":
        return max(values)
    m = re.fullmatch(r"p(\d+(?:\.\d+)?)", name)
    if m:
        return percentile(values, float(m.group(1)))
    raise ValueError(f"unknown statistic {name!r} (count, mean, min, max, p50, p90, ...)")


def owner(ids: Sequence[int], key: int) -> int | None:
    """Chord's owner of key: the first id at or after it on the ring."""
    if not ids:
        return None
    i = bisect.bisect_left(ids, key)
    return ids[i % len(ids)]


class RunData:
    """One run's records and the facts derived from them."""

    def __init__(self, name: str, nodes: int, duration: float, records: list[dict[str, Any]],
                 failure: str | None = None, traced: bool = True, learned: bool = False,
                 tally: TraceTally | None = None) -> None:
        """traced: the run's messages were traced (every grading run is: simulations always, live
        runs with --trace); then a node without trace rows sent and received nothing. learned: the
        trace named the peers received messages carried (the run's `learn: true`). tally: these
        records' trace, summed already (as the run went: runner._simulate); else it is read here."""
        self.name, self.nodes, self.duration, self.records, self.failure = name, nodes, duration, records, failure
        self.traced, self.learned = traced, learned
        self._probes: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._app_metrics: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._life: dict[int, list[tuple[float, int]]] = defaultdict(list)   # position -> (t, +1 | -1)
        self.churn_leaves: list[tuple[float, int]] = []
        read_trace = tally is None
        tally = TraceTally() if tally is None else tally
        self.traffic: dict[int, NodeTraffic] = tally.traffic
        self.operations: dict[str, Operation] = tally.operations
        self.trace_capped: set[int] = tally.capped
        joined_by_churn: set[int] = set()
        exits: list[dict[str, Any]] = []
        for r in records:
            kind = r.get("kind")
            if kind == "probe":
                self._probes[r.get("name", "")].append(r)
            elif kind == "metric":
                self._app_metrics[r.get("name", "")].append(r)
            elif kind == "trace":
                if read_trace:
                    tally.add(int(r.get("node", 0)), r.get("rows") or [])
            elif kind == "churn":
                if r.get("event") == "join":
                    self._life[r["node"]].append((r["t"], +1))
                    joined_by_churn.add(r["node"])
                else:
                    self._life[r["node"]].append((r["t"], -1))
                    self.churn_leaves.append((r["t"], r["node"]))
            elif kind == "exit" and not str(r.get("text", "")).startswith("stopped"):
                # (the run's end stops every node: not a death a check should see)
                self._life[r["node"]].append((r["t"], -1))
                if not str(r.get("text", "")).startswith("left (churn"):
                    exits.append(r)
        self.trace_rows = tally.rows
        self.by_churn = bool(joined_by_churn)
        if not self.by_churn:   # no scenario: every node starts at 0
            for k in range(1, nodes + 1):
                self._life[k].insert(0, (0.0, +1))
        for events in self._life.values():
            events.sort(key=lambda e: (e[0], -e[1]))
        # nodes that ended on their own (a crash, or events.exit()) before the run's end, where the
        # scenario had not removed them: position -> when
        self.dropped: dict[int, float] = {}
        for r in exits:
            k, t = r["node"], r["t"]
            if not any(k == node and abs(at - t) < 0.5 for at, node in self.churn_leaves):
                self.dropped.setdefault(k, t)
        self._ids: dict[int, list[tuple[float, int]]] = defaultdict(list)      # position -> (t, id)
        self._ids_t: dict[int, list[float]] = {}
        for r in self._probes.get("node_state", []):
            try:
                self._ids[r["node"]].append((r["t"], int(r["value"])))
            except (TypeError, ValueError):
                continue
        for k, seen in self._ids.items():
            self._ids_t[k] = [x[0] for x in seen]
        # live_ids(t) changes only where a node's life does or a node reports another id than
        # before: one sorted list per segment between those instants, computed once (a Chord
        # check asks at every lookup's start: thousands of instants, a few dozen segments)
        changes = {at for events in self._life.values() for at, _ in events}
        for seen in self._ids.values():
            changes.update(t for (t, ident), (_, before) in zip(seen[1:], seen) if ident != before)
        self._id_changes = sorted(changes)
        self._live_ids: dict[int, tuple[int, ...]] = {}
        self.memo: dict[Any, Any] = {}   # what checks derive from this run's records, by their key

    def operation(self, op: Any) -> Operation | None:
        return self.operations.get(str(op)) if op is not None else None

    # records -----------------------------------------------------------------------------------
    def largest_failure(self) -> tuple[float, int] | None:
        """(instant, nodes) of the churn's largest simultaneous leave (the earliest of equals),
        None without any leave: what failure-scenario checks measure from."""
        by_instant: dict[float, int] = defaultdict(int)
        for t, _ in self.churn_leaves:
            by_instant[round(t, 1)] += 1
        if not by_instant:
            return None
        t = max(by_instant, key=lambda t: (by_instant[t], -t))
        return t, by_instant[t]

    def metric(self, name: str) -> list[dict[str, Any]]:
        """The harness's records of that name (trusted)."""
        return self._probes.get(name, [])

    def values(self, name: str) -> list[float]:
        return [float(r["value"]) for r in self.metric(name)]

    def app_metric(self, name: str) -> list[dict[str, Any]]:
        """The submission's own splay.metrics records of that name: NOT trusted; a check that
        reads them says so in its message (docs/grading.md)."""
        return self._app_metrics.get(name, [])

    def logs(self, *levels: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("kind") == "log" and r.get("level") in levels]

    def exits(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("kind") == "exit"]

    def alive(self, k: int, t: float) -> bool:
        state = False
        for at, delta in self._life.get(k, []):
            if at > t:
                break
            state = delta > 0
        return state

    def alive_at(self, t: float) -> set[int]:
        return {k for k in self._life if self.alive(k, t)}

    def learned_view(self, k: int, t: float, view: list[int]) -> list[int]:
        """The entries of node k's view at t that a message had brought it by then (the trace's
        `learned` rows): what a peer-sampling check may count. A run that did not learn (the
        spec's `learn: true`) cannot say: a check that needs it refuses (needs_learned)."""
        self.needs_learned("peer-sampling views")
        known = self.traffic[k].learned if k in self.traffic else {}
        return [v for v in view if known.get(v, math.inf) <= t]

    def population(self) -> set[int]:
        """Every position that ran in this run (a node that sent nothing included)."""
        return {k for k in self._life if k > 0} | {k for k in self.traffic if k > 0}

    def per_node(self, measure) -> dict[int, float]:
        """measure(NodeTraffic) for every node of the population (one that sent nothing: 0)."""
        empty = NodeTraffic()
        return {k: float(measure(self.traffic.get(k, empty))) for k in self.population()}

    def needs_learned(self, what: str) -> None:
        if not self.learned:
            raise CheckError(f"run {self.name!r} must say `learn: true` to judge {what}: only then does the "
                             "trace name the peers each received message carried")

    def dropped_at(self, t: float) -> set[int]:
        """Nodes the scenario still wanted at t that had ended on their own by then."""
        return {k for k, at in self.dropped.items() if at <= t}

    def id_of(self, k: int, t: float) -> int | None:
        """The ring id node k reported last at or before t (else its first report after t)."""
        seen = self._ids.get(k)
        if not seen:
            return None
        i = bisect.bisect_right(self._ids_t[k], t)
        return seen[i - 1][1] if i else seen[0][1]

    def live_ids(self, t: float) -> tuple[int, ...]:
        """The ids the nodes alive at t reported last, sorted (with repeats, if several claim one)."""
        segment = bisect.bisect_right(self._id_changes, t)
        ids = self._live_ids.get(segment)
        if ids is None:
            ids = self._live_ids[segment] = tuple(sorted(
                i for i in (self.id_of(k, t) for k in self.alive_at(t)) if i is not None))
        return ids

    def state_rounds(self) -> dict[Any, list[dict[str, Any]]]:
        rounds: dict[Any, list[dict[str, Any]]] = defaultdict(list)
        for r in self.metric("node_state"):
            rounds[(r.get("fields") or {}).get("round", round(r["t"]))].append(r)
        return rounds
