"""The schedule both scripts and traces compile to (docs/churn.md, "Scheduling"): events of
numbered nodes, bounded by the scenario limits before any is made, and the views of it the
plots and the network need."""
from __future__ import annotations

import bisect
import math
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

from .language import Statement, parse_script
from .limits import MAX_EVENTS, MAX_NODES, ChurnError, _num, too_many
from .traces import FTA_KINDS, Intervals, parse_fta, parse_trace

@dataclass(frozen=True)
class Event:
    t: float
    kind: str  # join, leave; and the settings/network ones: set_max set_ratio partition heal loss latency
    node: int = 0  # joins and leaves: the node (1..), others 0
    graceful: bool = False
    line: int = 0
    value: float | tuple[float, ...] | None = None  # set_max, set_ratio (0..1), partition groups, loss, latency

    def text(self) -> str:
        at = f"at {_num(self.t)}s"
        if self.kind == "set_max":
            return f"{at} set maximum population to {_num(self.value)}"
        if self.kind == "set_ratio":
            return f"{at} set replacement ratio to {_num(self.value * 100)}%"
        if self.kind == "partition":
            return f"{at} partition " + " ".join(f"{_num(g * 100)}%" for g in self.value)
        if self.kind == "heal":
            return f"{at} heal"
        if self.kind == "loss":
            return f"{at} loss " + ("default" if self.value is None else f"{_num(self.value * 100)}%")
        if self.kind == "latency":
            return f"{at} latency x{_num(self.value)}"
        raise ValueError(self.kind)


@dataclass
class Schedule:
    events: list[Event]  # in time order; joins and leaves carry their node
    end: float | None  # `stop`: the instant everything stops; None: after the last event
    warnings: list[tuple[int, str]] = field(default_factory=list)  # (line, what was skipped and why)

    @property
    def nodes(self) -> int:
        """How many distinct nodes the scenario uses (instances a job needs)."""
        return max((e.node for e in self.events), default=0)

    @property
    def duration(self) -> float:
        return self.end if self.end is not None else max((e.t for e in self.events), default=0.0)

    def scheduled_text(self) -> str:
        """The scheduled form: one instant statement per line, in time order, re-parsable.
        Consecutive joins (or leaves) at one instant are one line; the comment says the population."""
        out: list[str] = []
        pop = 0
        i = 0
        ev = self.events
        while i < len(ev):
            e = ev[i]
            if e.kind in ("join", "leave"):
                j = i
                while j < len(ev) and ev[j].t == e.t and ev[j].kind == e.kind and ev[j].graceful == e.graceful:
                    j += 1
                n = j - i
                pop += n if e.kind == "join" else -n
                out.append(f"at {_num(e.t)}s {e.kind} {n}{' gracefully' if e.graceful else ''}  # population {pop}")
                i = j
            else:
                out.append(e.text())
                i += 1
        if self.end is not None:
            out.append(f"at {_num(self.end)}s stop")
        return "\n".join(out) + "\n"

    def trace(self) -> list[Intervals]:
        """Each node's sessions (SPLAY's trace)."""
        sessions: dict[int, Intervals] = {}
        for e in self.events:
            if e.kind == "join":
                sessions.setdefault(e.node, []).append((e.t, None))
            elif e.kind == "leave":
                up, _ = sessions[e.node][-1]
                sessions[e.node][-1] = (up, e.t)
        if self.end is not None:
            for iv in sessions.values():
                if iv and iv[-1][1] is None:
                    iv[-1] = (iv[-1][0], self.end)
        return [sessions.get(n, []) for n in range(1, self.nodes + 1)]


class _PlannedPopulation:
    """The population planned so far, read at the statements' own instants (their starts and
    ends, where relative quantities and churn look): a Fenwick tree over those instants, so a
    long script costs O(log n) per event rather than a scan of every event per statement."""

    def __init__(self, instants: Iterable[float]) -> None:
        self.instants = sorted(set(instants))
        self.tree = [0] * (len(self.instants) + 1)
        self.pending: list[tuple[float, int]] = []  # added since the last read

    def add(self, t: float, delta: int) -> None:
        self.pending.append((t, delta))

    def at(self, t: float) -> int:
        """Joins minus leaves planned at or before `t` (one of the instants), at least 0."""
        for when, delta in self.pending:  # counts for every instant at or after `when`
            i = bisect.bisect_left(self.instants, when) + 1
            while i < len(self.tree):
                self.tree[i] += delta
                i += i & -i
        self.pending.clear()
        total, i = 0, bisect.bisect_right(self.instants, t)
        while i > 0:
            total += self.tree[i]
            i -= i & -i
        return max(0, total)


def schedule(statements: Iterable[Statement], seed: int = 1) -> Schedule:
    """Turn statements into events of numbered nodes (docs/churn.md, "Scheduling").

    Pass 1 places the joins and leaves in time (periods spread them evenly; additional churn at
    random instants; percentages of the population planned so far at that time). Pass 2 replays
    them in time order and picks the nodes: a join revives a node that left with probability
    1 - replacement ratio, else starts a fresh one; a leave takes a random node that is up; a
    join above the maximum population and a leave with nobody up are skipped (a warning)."""
    times = random.Random(f"{seed}:times")
    picks = random.Random(f"{seed}:nodes")
    sts = sorted(statements, key=lambda s: (s.t1, s.line))
    stop = next((s.t1 for s in sts if s.action == "stop"), None)
    warnings: list[tuple[int, str]] = []
    # planned (t, +1/-1), read by relative quantities and churn at statements' starts and ends
    population = _PlannedPopulation([s.t1 for s in sts] + [min(s.t2, stop) if stop is not None else s.t2
                                                           for s in sts if s.t2 is not None])
    planned: list[tuple[float, int, str, bool, int, object]] = []  # (t, order, kind, graceful, line, value)

    def plan(t: float, kind: str, graceful: bool = False, line: int = 0, value: object = None) -> None:
        if stop is not None and t > stop:
            return
        order = {"set_max": 0, "set_ratio": 0, "partition": 1, "heal": 1, "loss": 1, "latency": 1,
                 "leave": 2, "join": 3}[kind]
        planned.append((round(t, 3), order, kind, graceful, line, value))
        if kind in ("join", "leave"):
            population.add(round(t, 3), 1 if kind == "join" else -1)

    def room_for(line: int, count: int) -> None:
        """Refuse a statement whose `count` more events would pass MAX_EVENTS, before making them."""
        if len(planned) + count > MAX_EVENTS:
            raise ChurnError(line, 0, f"this line adds {count:,} events to {len(planned):,}: "
                                      f"a scenario holds at most {MAX_EVENTS:,} events (joins, leaves "
                                      "and network changes)")

    loss_now: float | None = None
    latency_now = 1.0
    for s in sts:
        if stop is not None and s.t1 > stop:
            warnings.append((s.line, f"after 'stop' at {_num(stop)} s: ignored"))
            continue
        t2 = min(s.t2, stop) if s.t2 is not None and stop is not None else s.t2
        if s.action not in ("join", "leave"):
            room_for(s.line, 2)  # a setting or network change, and its period's end
        if s.action in ("join", "leave"):
            q = s.quantity
            n = q.value * population.at(s.t1) / 100 if q.relative else q.value
            n = int(math.floor(n + 1e-9)) if math.isfinite(n) else MAX_NODES + 1
            if n > MAX_NODES:
                raise too_many(s.line, f"{'join' if s.action == 'join' else 'leave'} of", n, MAX_NODES, "nodes")
            room_for(s.line, n)
            for k in range(1, n + 1):
                t = s.t1 if t2 is None else s.t1 + (s.t2 - s.t1) * k / n
                plan(t, s.action, s.graceful, s.line)
        elif s.action == "set_max":
            plan(s.t1, "set_max", line=s.line, value=s.quantity.value)
        elif s.action == "set_ratio":
            plan(s.t1, "set_ratio", line=s.line, value=s.quantity.value / 100)
        elif s.action == "partition":
            plan(s.t1, "partition", line=s.line, value=s.groups)
            if t2 is not None:
                plan(t2, "heal", line=s.line)
        elif s.action == "heal":
            plan(s.t1, "heal", line=s.line)
        elif s.action in ("loss", "latency"):
            before = loss_now if s.action == "loss" else latency_now
            plan(s.t1, s.action, line=s.line, value=s.factor)
            if t2 is not None:
                plan(t2, s.action, line=s.line, value=before)
            elif s.action == "loss":
                loss_now = s.factor
            else:
                latency_now = s.factor
        if s.churn is not None and t2 is not None:
            mean = (population.at(s.t1) + population.at(t2)) / 2
            size = s.churn.value * mean / 100 if s.churn.relative else s.churn.value
            if s.churn_per:
                size *= (t2 - s.t1) / s.churn_per
            pairs = int(round(size)) if math.isfinite(size) else 10**18
            room_for(s.line, 2 * pairs)
            for _ in range(pairs):
                plan(times.uniform(s.t1, t2), "leave", False, s.line)
                plan(times.uniform(s.t1, t2), "join", False, s.line)

    planned.sort(key=lambda p: (p[0], p[1]))
    events: list[Event] = []
    up: list[int] = []
    gone: list[int] = []
    fresh = 0
    ratio, cap = 1.0, math.inf
    skipped: Counter[tuple[int, str]] = Counter()
    for t, _, kind, graceful, line, value in planned:
        if kind == "set_max":
            cap = value
        elif kind == "set_ratio":
            ratio = value
        if kind == "join":
            if len(up) >= cap:
                skipped[(line, f"maximum population {_num(cap)} reached")] += 1
                continue
            if gone and picks.random() >= ratio:
                node = gone.pop(picks.randrange(len(gone)))
            else:
                fresh += 1
                node = fresh
                if fresh > MAX_NODES:
                    raise too_many(line, "the scenario reaches", fresh, MAX_NODES, "distinct nodes",
                                    "each join starts a fresh node unless 'set replacement ratio' revives some")
            up.append(node)
            events.append(Event(t, "join", node, line=line))
        elif kind == "leave":
            if not up:
                skipped[(line, "nobody was up")] += 1
                continue
            node = up.pop(picks.randrange(len(up)))
            gone.append(node)
            events.append(Event(t, "leave", node, graceful, line))
        else:
            events.append(Event(t, kind, line=line, value=value))
    for (line, why), n in sorted(skipped.items()):
        what = "join" if why.startswith("maximum") else "leave"
        warnings.append((line, f"{n} {what}{'s' if n > 1 else ''} skipped: {why}"))
    warnings.sort()
    return Schedule(events=events, end=stop, warnings=warnings)


def schedule_from_trace(nodes: list[Intervals]) -> Schedule:
    """A trace's events: node k of the schedule is line k of the trace."""
    raw: list[tuple[float, int, int]] = []
    for k, iv in enumerate(nodes, 1):
        for u, d in iv:
            raw.append((u, 1, k))
            if d is not None:
                raw.append((d, 0, k))
    raw.sort()
    return Schedule(events=[Event(t, "join" if j else "leave", k) for t, j, k in raw], end=None)


def load_kind(text: str) -> str:
    """"fta" (rows of 8+ columns whose 6th is an event type), "trace" (numbers only) or "script"."""
    rows = [r for r in (ln.split("#", 1)[0].split() for ln in text.split("\n")) if r]
    if rows and all(len(r) >= 8 and r[5].lower() in FTA_KINDS for r in rows):
        return "fta"
    if rows and all(re.fullmatch(r"[0-9.]+", c) for r in rows for c in r):
        return "trace"
    return "script"


def load(text: str, seed: int = 1) -> Schedule:
    """A script, a SPLAY trace or an FTA event_trace, told apart by their content (load_kind)."""
    kind = load_kind(text)
    if kind == "fta":
        return schedule_from_trace(parse_fta(text))
    if kind == "trace":
        return schedule_from_trace(parse_trace(text))
    return schedule(parse_script(text), seed=seed)




def network_overlay(plan: Schedule, n: int, seed: int = 1) -> dict[str, list[dict]]:
    """The scenario's network events as additions to every node's `net` block (netmodel.py,
    netem.lua): `partitions` [{at, until, groups}] and `phases` [{at, loss, latency}].
    A partition's groups are its shares of the n nodes, placed by a seeded shuffle (groups
    mix early and late joiners)."""
    rng = random.Random(f"{seed}:partition")
    partitions: list[dict] = []
    phases: list[dict] = []
    loss: float | None = None
    latency = 1.0
    for e in plan.events:
        if e.kind == "partition":
            if partitions and partitions[-1]["until"] is None:
                partitions[-1]["until"] = e.t
            order = list(range(n))
            rng.shuffle(order)
            groups = [0] * n
            start = 0
            for g, share in enumerate(e.value):
                count = n - start if g == len(e.value) - 1 else round(share * n)
                for idx in order[start:start + count]:
                    groups[idx] = g
                start += count
            partitions.append({"at": e.t, "until": None, "groups": groups})
        elif e.kind == "heal" and partitions and partitions[-1]["until"] is None:
            partitions[-1]["until"] = e.t
        elif e.kind in ("loss", "latency"):
            if e.kind == "loss":
                loss = e.value
            else:
                latency = e.value
            phase = {"at": e.t, "latency": latency}
            if loss is not None:
                phase["loss"] = loss
            if phases and phases[-1]["at"] == e.t:
                phases[-1] = phase
            else:
                phases.append(phase)
    if plan.end is not None and partitions and partitions[-1]["until"] is None:
        partitions[-1]["until"] = plan.end
    return {"partitions": partitions, "phases": phases}


def population_steps(events: Iterable[Event]) -> list[tuple[float, int]]:
    """(t, population after the events at t), one point per instant with joins or leaves."""
    out: list[tuple[float, int]] = []
    pop = 0
    for e in events:
        if e.kind not in ("join", "leave"):
            continue
        pop += 1 if e.kind == "join" else -1
        if out and out[-1][0] == e.t:
            out[-1] = (e.t, pop)
        else:
            out.append((e.t, pop))
    return out


def per_bin(events: Iterable[Event], width: float) -> list[tuple[float, int, int]]:
    """(bin start, joins, leaves) per bin of `width` seconds (the lower panel of figure 4)."""
    counts: dict[int, list[int]] = {}
    for e in events:
        if e.kind in ("join", "leave"):
            c = counts.setdefault(int(e.t // width), [0, 0])
            c[0 if e.kind == "join" else 1] += 1
    if not counts:
        return []
    return [(k * width, *counts.get(k, [0, 0])) for k in range(0, max(counts) + 1)]
