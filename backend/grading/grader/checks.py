"""The checks library (docs/grading.md): each check reads a run's JSONL records (and the
reference's, on the same run) and returns an Outcome: a score in [0, 1], passed or not, and a
message saying what was measured against what was expected.

The facts checks share are derived here once: who was alive when (churn and exit records), each
node's ring id (the harness's `node_state` records), the true owner of a key among the live ids.
"""
from __future__ import annotations

import bisect
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable

REQUIRED = object()   # a parameter without a default


@dataclass
class Outcome:
    score: float
    message: str
    passed: bool | None = None   # None: passed when score is 1

    def __post_init__(self) -> None:
        self.score = max(0.0, min(1.0, float(self.score)))
        if self.passed is None:
            self.passed = self.score >= 0.9999


class CheckError(Exception):
    """The check cannot judge (the reference produced no data): an instructor's problem."""


# records --------------------------------------------------------------------------------------
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


class RunData:
    """One run's records and the facts derived from them."""

    def __init__(self, name: str, nodes: int, duration: float, records: list[dict[str, Any]],
                 failure: str | None = None) -> None:
        self.name, self.nodes, self.duration, self.records, self.failure = name, nodes, duration, records, failure
        self._metrics: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._life: dict[int, list[tuple[float, int]]] = defaultdict(list)   # position -> (t, +1 | -1)
        self.churn_leaves: list[tuple[float, int]] = []
        joined_by_churn: set[int] = set()
        for r in records:
            kind = r.get("kind")
            if kind == "metric":
                self._metrics[r.get("name", "")].append(r)
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
        self.by_churn = bool(joined_by_churn)
        if not self.by_churn:   # no scenario: every node starts at 0
            for k in range(1, nodes + 1):
                self._life[k].insert(0, (0.0, +1))
        for events in self._life.values():
            events.sort(key=lambda e: (e[0], -e[1]))
        self._ids: dict[int, list[tuple[float, int]]] = defaultdict(list)      # position -> (t, id)
        for r in self._metrics.get("node_state", []):
            self._ids[r["node"]].append((r["t"], int(r["value"])))

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
        return self._metrics.get(name, [])

    def values(self, name: str) -> list[float]:
        return [float(r["value"]) for r in self.metric(name)]

    def logs(self, *levels: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("kind") == "log" and r.get("level") in levels]

    def alive(self, k: int, t: float) -> bool:
        state = False
        for at, delta in self._life.get(k, []):
            if at > t:
                break
            state = delta > 0
        return state

    def alive_at(self, t: float) -> set[int]:
        return {k for k in self._life if self.alive(k, t)}

    def id_of(self, k: int, t: float) -> int | None:
        """The ring id node k reported last at or before t (else its first report after t)."""
        seen = self._ids.get(k)
        if not seen:
            return None
        i = bisect.bisect_right([x[0] for x in seen], t)
        return seen[i - 1][1] if i else seen[0][1]

    def live_ids(self, t: float) -> list[int]:
        return sorted(i for i in (self.id_of(k, t) for k in self.alive_at(t)) if i is not None)

    def state_rounds(self) -> dict[Any, list[dict[str, Any]]]:
        rounds: dict[Any, list[dict[str, Any]]] = defaultdict(list)
        for r in self.metric("node_state"):
            rounds[(r.get("fields") or {}).get("round", round(r["t"]))].append(r)
        return rounds


def owner(ids: list[int], key: int) -> int | None:
    """Chord's owner of key: the first id at or after it on the ring."""
    if not ids:
        return None
    i = bisect.bisect_left(ids, key)
    return ids[i % len(ids)]


@dataclass
class Context:
    """What a check sees: its run's data, the reference's on the same run, and its parameters.
    `runs`/`reference_runs` hold every run of the spec by name (for custom checks)."""
    run: RunData
    reference: RunData | None
    params: dict[str, Any]
    runs: dict[str, RunData] = field(default_factory=dict)
    reference_runs: dict[str, RunData] = field(default_factory=dict)


# the library ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class CheckDef:
    fn: Callable[[Context], Outcome]
    params: dict[str, Any]
    needs_reference: bool = False


LIBRARY: dict[str, CheckDef] = {}


def library_check(name: str, needs_reference: bool = False, **params: Any) -> Callable:
    def register(fn: Callable[[Context], Outcome]) -> Callable[[Context], Outcome]:
        LIBRARY[name] = CheckDef(fn, params, needs_reference)
        return fn
    return register


def _where(r: dict[str, Any]) -> str:
    return f"node {r.get('node')} at {float(r.get('t', 0)):.1f} s"


def _first_line(text: str, limit: int = 240) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= limit else line[:limit] + "..."


def _churned_exit(run: RunData, r: dict[str, Any]) -> bool:
    return str(r.get("text", "")).startswith("left (churn") or any(
        k == r["node"] and abs(t - r["t"]) < 0.5 for t, k in run.churn_leaves)


# splay.rpc serves a call whose function raises by answering the caller with the error and
# logging a warning on the server (as SPLAY does): for grading, that is the submission's error.
RPC_RAISED = re.compile(r"\[splay\.rpc\] call to '[^']*' raised: ")


@library_check("no_runtime_errors")
def no_runtime_errors(ctx: Context) -> Outcome:
    run = ctx.run
    errors = [r for r in run.records if r.get("kind") == "log" and (
        r.get("level") in ("error", "fatal") or (r.get("level") == "warning" and RPC_RAISED.search(str(r.get("text", "")))))]
    failed = [r for r in run.records if r.get("kind") == "exit" and r.get("code") not in (0, None)
              and not _churned_exit(run, r) and not str(r.get("text", "")).startswith("stopped")]
    if run.failure:
        return Outcome(0, f"the run failed: {run.failure}")
    if not errors and not failed:
        return Outcome(1, "no node raised an error")
    first = errors[0] if errors else failed[0]
    nodes = {r["node"] for r in errors + failed}
    return Outcome(0, f"{len(nodes)} node(s) failed; first, {_where(first)}: {_first_line(first.get('text', ''))}")


LIMIT_RE = re.compile(r"limit|out of memory|computed for more than", re.I)


@library_check("within_limits")
def within_limits(ctx: Context) -> Outcome:
    run = ctx.run
    if run.failure and LIMIT_RE.search(run.failure):
        return Outcome(0, f"the run was stopped: {run.failure}")
    hits = [r for r in run.records if r.get("kind") in ("exit", "log") and r.get("level", "error") in ("error", "fatal")
            and LIMIT_RE.search(str(r.get("text", "")))]
    if hits:
        return Outcome(0, f"{_where(hits[0])}: {_first_line(hits[0]['text'])}")
    return Outcome(1, "no node reached a resource limit")


def _round(run: RunData, at: Any) -> tuple[Any, list[dict[str, Any]]]:
    rounds = run.state_rounds()
    if not rounds:
        raise LookupError("no node_state records: the harness found no ring state to check "
                          "(did the nodes start, and do they keep `n`, `finger` and `predecessor`?)")
    keys = sorted(rounds, key=lambda k: min(r["t"] for r in rounds[k]))
    if at == "last":
        return keys[-1], rounds[keys[-1]]
    best = min(keys, key=lambda k: abs(min(r["t"] for r in rounds[k]) - float(at)))
    return best, rounds[best]


@library_check("ring_correct", min_fraction=1.0, at="last", check_pred=False)
def ring_correct(ctx: Context) -> Outcome:
    p = ctx.params
    try:
        _, states = _round(ctx.run, p["at"])
    except LookupError as e:
        return Outcome(0, str(e))
    ids = sorted({int(r["value"]) for r in states})
    if len(ids) < len(states):
        return Outcome(0, f"{len(states) - len(ids)} node(s) share a ring id with another: ids must be distinct")
    right, example = 0, ""
    for r in sorted(states, key=lambda r: r["node"]):
        me, f = int(r["value"]), r.get("fields") or {}
        i = ids.index(me)
        succ, pred = ids[(i + 1) % len(ids)], ids[i - 1]
        ok = int(f.get("succ", -1)) == succ and (not p["check_pred"] or int(f.get("pred", -1)) == pred)
        right += ok
        if not ok and not example:
            if int(f.get("succ", -1)) != succ:
                example = f"; e.g. node {r['node']} (id {me}) has successor {f.get('succ')}, the right one is {succ}"
            else:
                example = f"; e.g. node {r['node']} (id {me}) has predecessor {f.get('pred')}, the right one is {pred}"
    fraction = right / len(states)
    what = "successor and predecessor" if p["check_pred"] else "successor"
    msg = f"{right} of {len(states)} live nodes have the right {what} (needed {p['min_fraction']:.0%}){example}"
    return Outcome(1 if fraction >= p["min_fraction"] else fraction, msg, fraction >= p["min_fraction"])


def _judged_lookups(run: RunData, after: float = 0) -> list[tuple[float, bool, dict[str, Any]]]:
    """(end time, right answer, record) for every lookup ending after `after`."""
    out = []
    for r in run.metric("lookup_latency"):
        if r["t"] < after:
            continue
        f = r.get("fields") or {}
        start = r["t"] - float(r["value"])
        try:
            truth = owner(run.live_ids(start), int(f["key"]))
            ok = truth is not None and int(f.get("owner", -1)) == truth
        except (KeyError, TypeError, ValueError):
            ok = False
        out.append((r["t"], ok, r))
    out += [(r["t"], False, r) for r in run.metric("lookup_failed") if r["t"] >= after]
    out.sort(key=lambda x: x[0])
    return out


@library_check("lookup_success", min_rate=0.99, after=0)
def lookup_success(ctx: Context) -> Outcome:
    p = ctx.params
    judged = _judged_lookups(ctx.run, float(p["after"]))
    if not judged:
        return Outcome(0, "no lookup was recorded: did find_successor answer at all?")
    right = sum(ok for _, ok, _ in judged)
    unanswered = sum(1 for _, _, r in judged if r.get("name") == "lookup_failed")
    wrong = len(judged) - right - unanswered
    rate = right / len(judged)
    example = next((r for _, ok, r in judged if not ok and r.get("name") == "lookup_latency"), None)
    detail = ""
    if example:
        f = example.get("fields") or {}
        truth = owner(ctx.run.live_ids(example["t"] - float(example["value"])), int(f.get("key", 0)))
        detail = f"; e.g. key {f.get('key')} answered {f.get('owner')}, its owner is {truth}"
    msg = (f"{right} of {len(judged)} lookups found the key's owner ({rate:.1%}, needed {p['min_rate']:.0%}); "
           f"{wrong} answered a wrong node, {unanswered} got no answer{detail}")
    return Outcome(min(1.0, rate / p["min_rate"]) if p["min_rate"] > 0 else 1.0, msg, rate >= p["min_rate"])


def _right_lookups(run: RunData) -> tuple[list[dict[str, Any]], str | None]:
    """The answered lookups that found the true owner, or a reason why there are too few of them
    to judge their hops or latency (a node that answers itself at once is fast, not right)."""
    judged = _judged_lookups(run)
    right = [r for _, ok, r in judged if ok]
    if not judged:
        return [], "no lookup was recorded"
    if len(right) < 0.5 * len(judged):
        return [], f"only {len(right)} of {len(judged)} lookups found the key's owner: too few to judge"
    return right, None


@library_check("hop_bound", stat="mean", factor=0.5, plus=1)
def hop_bound(ctx: Context) -> Outcome:
    p = ctx.params
    lookups, why = _right_lookups(ctx.run)
    if why:
        return Outcome(0, why)
    hops = [float((r.get("fields") or {}).get("hops", "nan")) for r in lookups]
    hops = [h for h in hops if h == h]
    if not hops:
        return Outcome(0, "no lookup reported its hops (find_successor must return owner, hops)")
    mid = sorted(r["t"] for r in lookups)[len(lookups) // 2]
    n = max(2, len(ctx.run.alive_at(mid)))
    bound = p["factor"] * math.log2(n) + p["plus"]
    value = stat(hops, p["stat"])
    msg = (f"{p['stat']} hops {value:.2f} over {len(hops)} right lookups; bound {p['factor']:g} x log2({n}) + "
           f"{p['plus']:g} = {bound:.2f}")
    return Outcome(1 if value <= bound else bound / value, msg, value <= bound)


def _vs_reference(ctx: Context, metric: str, pct: float, max_ratio: float, what: str) -> Outcome:
    if ctx.reference is None:
        raise CheckError("no reference run to compare with")
    if metric == "lookup_latency":   # the right answers only, on both sides
        right, why = _right_lookups(ctx.run)
        if why:
            return Outcome(0, why)
        mine = [float(r["value"]) for r in right]
        ref = [float(r["value"]) for r in _right_lookups(ctx.reference)[0]]
    else:
        mine, ref = ctx.run.values(metric), ctx.reference.values(metric)
    if not ref:
        raise CheckError(f"the reference solution recorded no {metric} on run {ctx.run.name!r}")
    if not mine:
        return Outcome(0, f"no {what} was recorded ({metric})")
    a, b = percentile(mine, pct), percentile(ref, pct)
    ratio = a / b if b > 0 else (1.0 if a <= 0 else math.inf)
    msg = (f"p{pct:g} {what} {a * 1000:.1f} ms, the reference's {b * 1000:.1f} ms: {ratio:.2f}x "
           f"(allowed {max_ratio:g}x)")
    return Outcome(1 if ratio <= max_ratio else max_ratio / ratio, msg, ratio <= max_ratio)


@library_check("latency_vs_reference", needs_reference=True, metric="lookup_latency", percentile=90, max_ratio=1.5)
def latency_vs_reference(ctx: Context) -> Outcome:
    p = ctx.params
    return _vs_reference(ctx, p["metric"], float(p["percentile"]), float(p["max_ratio"]), "latency")


def _broadcasts(run: RunData) -> tuple[dict[str, tuple[float, int]], set[tuple[str, int]]]:
    sent = {}
    for r in run.metric("broadcast_sent"):
        msg = str((r.get("fields") or {}).get("msg"))
        sent.setdefault(msg, (r["t"], r["node"]))
    got = {(str((r.get("fields") or {}).get("msg")), r["node"]) for r in run.metric("broadcast_delivered")}
    return sent, got


def broadcast_deliveries(run: RunData) -> tuple[int, int, int, tuple[str, float, int, int] | None]:
    """(deliveries, expected deliveries, messages sent, the worst-covered message as (msg, share,
    delivered, receivers)): each message is expected at every node alive when it was sent and still
    alive at the end of the run, its origin apart."""
    sent, got = _broadcasts(run)
    expected = delivered = 0
    worst = None
    for msg, (t, origin) in sent.items():
        receivers = {k for k in run.alive_at(t) if run.alive(k, run.duration - 0.001)} - {origin}
        have = sum((msg, k) in got for k in receivers)
        expected += len(receivers)
        delivered += have
        if worst is None or have / max(1, len(receivers)) < worst[1]:
            worst = (msg, have / max(1, len(receivers)), have, len(receivers))
    return delivered, expected, len(sent), worst


@library_check("broadcast_coverage", min_fraction=1.0)
def broadcast_coverage(ctx: Context) -> Outcome:
    p = ctx.params
    delivered, expected, sent, worst = broadcast_deliveries(ctx.run)
    if not sent:
        return Outcome(0, "no broadcast was sent (broadcast_sent)")
    fraction = delivered / expected if expected else 1.0
    msg = (f"{delivered} of {expected} deliveries to live nodes ({fraction:.1%}, needed {p['min_fraction']:.0%}) "
           f"over {sent} messages")
    if worst and worst[1] < 1:
        msg += f"; message {worst[0]} reached {worst[2]} of {worst[3]}"
    return Outcome(min(1.0, fraction / p["min_fraction"]) if p["min_fraction"] > 0 else 1, msg,
                   fraction >= p["min_fraction"])


@library_check("broadcast_latency_vs_reference", needs_reference=True, percentile=90, max_ratio=1.5,
               min_coverage=0.5)
def broadcast_latency_vs_reference(ctx: Context) -> Outcome:
    p = ctx.params
    delivered, expected, _, _ = broadcast_deliveries(ctx.run)
    if expected and delivered < p["min_coverage"] * expected:
        # a broadcast that stops after one hop is fast, not good
        return Outcome(0, f"only {delivered} of {expected} deliveries happened: too few to judge their latency "
                          f"(needs {p['min_coverage']:.0%})")
    return _vs_reference(ctx, "broadcast_delivered", float(p["percentile"]), float(p["max_ratio"]),
                         "delivery latency")


@library_check("recovery_time", max_seconds=REQUIRED, bin=5, max_failure_rate=0.05)
def recovery_time(ctx: Context) -> Outcome:
    run, p = ctx.run, ctx.params
    failure = run.largest_failure()
    if failure is None:
        raise CheckError(f"run {run.name!r} has no churn leave: recovery_time needs a failure scenario")
    failure_t, failed = failure
    judged = _judged_lookups(run, failure_t)
    if not judged:
        return Outcome(0, f"no lookup ended after the failure at {failure_t:.1f} s")
    size = float(p["bin"])
    bins: dict[int, list[bool]] = defaultdict(list)
    for t, ok, _ in judged:
        bins[int((t - failure_t) // size)].append(ok)
    rates = {b: 1 - sum(v) / len(v) for b, v in bins.items()}
    bad = [b for b, rate in rates.items() if rate > p["max_failure_rate"]]
    if bad and max(bad) == max(rates):
        return Outcome(0, f"{failed} nodes failed at {failure_t:.1f} s; lookups never recovered: "
                          f"{rates[max(rates)]:.0%} failed in the last {size:g} s")
    recovered = (max(bad) + 1) * size if bad else 0.0
    peak = max(rates.values())
    msg = (f"{failed} nodes failed at {failure_t:.1f} s; lookup failures peaked at {peak:.0%} and "
           f"stayed under {p['max_failure_rate']:.0%} from {recovered:g} s after (allowed {p['max_seconds']:g} s)")
    ok = recovered <= p["max_seconds"]
    return Outcome(1 if ok else p["max_seconds"] / recovered, msg, ok)


@library_check("view_health", size=REQUIRED, min_in_degree=1, max_dead_fraction=0.1)
def view_health(ctx: Context) -> Outcome:
    run, p = ctx.run, ctx.params
    views = run.metric("view")
    if not views:
        return Outcome(0, "no view was recorded (the harness samples each node's view)")
    rounds: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for r in views:
        rounds[(r.get("fields") or {}).get("round", round(r["t"]))].append(r)
    last = max(rounds, key=lambda k: max(r["t"] for r in rounds[k]))
    sample = {r["node"]: r for r in rounds[last]}
    t = max(r["t"] for r in rounds[last])
    live = run.alive_at(t) | set(sample)
    want = min(int(p["size"]), max(1, len(live) - 1))
    full = clean = dead = entries = 0
    indegree: dict[int, int] = defaultdict(int)
    edges: dict[int, set[int]] = defaultdict(set)
    for k, r in sample.items():
        raw = str((r.get("fields") or {}).get("view", ""))
        view = [int(x) for x in raw.split(",") if x.strip().lstrip("-").isdigit()]
        full += len(view) >= want
        clean += k not in view and len(set(view)) == len(view)
        for v in set(view) - {k}:
            indegree[v] += 1
            if v in sample:   # connectivity through live nodes only
                edges[k].add(v)
                edges[v].add(k)
        entries += len(view)
        dead += sum(1 for v in view if not run.alive(v, t))
    n = len(sample)
    known = sum(1 for k in sample if indegree[k] >= p["min_in_degree"])
    # the largest connected part of the overlay, links taken both ways
    seen: set[int] = set()
    largest = 0
    for start in sample:
        if start in seen:
            continue
        stack, part = [start], 0
        seen.add(start)
        while stack:
            x = stack.pop()
            part += x in sample
            for y in edges[x]:
                if y not in seen:
                    seen.add(y)
                    stack.append(y)
        largest = max(largest, part)
    dead_fraction = dead / entries if entries else 0.0
    criteria = [
        (full / n, f"{full} of {n} views hold {want} entries"),
        (clean / n, f"{clean} of {n} without self or duplicates"),
        (known / n, f"{known} of {n} nodes are in at least {p['min_in_degree']} other views"),
        (1.0 if dead_fraction <= p["max_dead_fraction"] else p["max_dead_fraction"] / dead_fraction,
         f"{dead_fraction:.1%} of entries point to dead nodes (allowed {p['max_dead_fraction']:.0%})"),
        (largest / n, f"the overlay's largest connected part holds {largest} of {n} nodes"),
    ]
    score = sum(c[0] for c in criteria) / len(criteria)
    passed = all(c[0] >= 0.9999 for c in criteria)
    return Outcome(score if not passed else 1.0, f"at {t:.0f} s: " + "; ".join(c[1] for c in criteria), passed)


@library_check("metric_bound", metric=REQUIRED, stat="mean", min=None, max=None)
def metric_bound(ctx: Context) -> Outcome:
    p = ctx.params
    values = ctx.run.values(p["metric"])
    try:
        value = stat(values, p["stat"])
    except ValueError:
        return Outcome(0, f"no {p['metric']} was recorded")
    lo, hi = p["min"], p["max"]
    ok = (lo is None or value >= lo) and (hi is None or value <= hi)
    bounds = " and ".join(x for x in (f">= {lo:g}" if lo is not None else "", f"<= {hi:g}" if hi is not None else "") if x)
    return Outcome(1 if ok else 0, f"{p['stat']} of {p['metric']}: {value:g} (needed {bounds or 'anything'})", ok)
