"""Checks of a ring (Chord and its kin): the state the nodes report, lookups, their hops and
latency, recovery after a failure.

What is measured, not reported (docs/grading.md, "What the grader trusts"): a lookup is one
operation the harness runs (h.operation); its latency is the runtime's measure of it and its hops
are the rpc calls the trace attributes to it on every node. What find_successor returns as its hop
count is only quoted. With `local_reach`, a right answer is credible only when some node that
took part in it could know the owner: the asking node or a node that served one of its calls is
the owner or has it among its first `local_reach` successors on the true ring. Otherwise the
answer came from knowledge no Chord node has (every node's id, gathered beforehand) and counts
as unfounded, not right.
"""
from __future__ import annotations

import bisect
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .library import REQUIRED, CheckError, Context, Outcome, library_check, reference_of
from .rundata import RunData, owner, percentile, stat


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


@library_check("ring_correct", min_fraction=1.0, at="last", check_pred=False, require_contact=True)
def ring_correct(ctx: Context) -> Outcome:
    """Each node's successor (and predecessor) is the true one among the ids the nodes report.
    Counted against every node the scenario wants alive: one that ended on its own is wrong. With
    require_contact, a pointer counts only if the node exchanged a message with that node during
    the run (the trace): a ring computed without asking anyone is not a ring the nodes built."""
    p = ctx.params
    run = ctx.run
    try:
        _, states = _round(run, p["at"])
    except LookupError as e:
        return Outcome(0, str(e))
    ids = sorted({int(r["value"]) for r in states})
    if len(ids) < len(states):
        return Outcome(0, f"{len(states) - len(ids)} node(s) share a ring id with another: ids must be distinct")
    at = min(r["t"] for r in states)
    gone = run.dropped_at(at) - {r["node"] for r in states}
    position = {int(r["value"]): r["node"] for r in states}
    contact = p["require_contact"] and run.traced
    right, example, unfounded = 0, "", 0
    for r in sorted(states, key=lambda r: r["node"]):
        me, f = int(r["value"]), r.get("fields") or {}
        i = ids.index(me)
        succ, pred = ids[(i + 1) % len(ids)], ids[i - 1]
        ok = int(f.get("succ", -1)) == succ and (not p["check_pred"] or int(f.get("pred", -1)) == pred)
        if ok and contact:
            talked = run.traffic[r["node"]].talked | {r["node"]}
            needed = {position[succ]} | ({position[pred]} if p["check_pred"] else set())
            if not needed <= talked:
                ok = False
                unfounded += 1
        right += ok
        if not ok and not example:
            if int(f.get("succ", -1)) != succ:
                example = f"; e.g. node {r['node']} (id {me}) has successor {f.get('succ')}, the right one is {succ}"
            elif p["check_pred"] and int(f.get("pred", -1)) != pred:
                example = f"; e.g. node {r['node']} (id {me}) has predecessor {f.get('pred')}, the right one is {pred}"
    expected = len(states) + len(gone)
    fraction = right / expected
    what = "successor and predecessor" if p["check_pred"] else "successor"
    msg = f"{right} of {expected} live nodes have the right {what} (needed {p['min_fraction']:.0%}){example}"
    if unfounded:
        msg += (f"; {unfounded} node(s) hold the right pointer but never exchanged a message with that node "
                "(not counted: a ring the nodes did not build)")
    if gone:
        msg += f"; {len(gone)} node(s) had ended on their own before (counted as wrong)"
    return Outcome(1 if fraction >= p["min_fraction"] else fraction, msg, fraction >= p["min_fraction"])


# lookups ------------------------------------------------------------------------------------
@dataclass
class Lookup:
    t: float                  # when it ended
    verdict: str              # right | wrong | unanswered | unfounded (right, but no message could explain it)
    record: dict[str, Any]
    truth: int | None = None
    hops: int | None = None   # rpc calls the trace attributes to it (None: not traced)

    @property
    def right(self) -> bool:
        return self.verdict == "right"


def _could_know(run: RunData, ids: Sequence[int], node: int, start: float, truth: int, reach: int) -> bool:
    """Could that node know truth by itself: it is the node or one of its first `reach`
    successors among the live ids."""
    me = run.id_of(node, start)
    if me is None or not ids:
        return False
    if truth == me:
        return True
    i = ids.index(me) if me in ids else bisect.bisect_left(ids, me) - 1
    return truth in {ids[(i + j) % len(ids)] for j in range(1, reach + 1)}


def judge_lookups(run: RunData, after: float = 0, until: float = math.inf,
                  local_reach: int | None = None) -> list[Lookup]:
    """Every lookup ending in [after, until): its verdict against the true owner among the ids live
    at its start, and its hops measured from the trace. Judged once per run and arguments: several
    checks of an assignment ask for the same."""
    key = ("judge_lookups", after, until, local_reach)
    if key not in run.memo:
        run.memo[key] = _judge_lookups(run, after, until, local_reach)
    return list(run.memo[key])


def _judge_lookups(run: RunData, after: float, until: float, local_reach: int | None) -> list[Lookup]:
    out = []
    for r in run.metric("lookup_latency"):
        if not after <= r["t"] < until:
            continue
        f = r.get("fields") or {}
        start = r["t"] - float(r["value"])
        op = run.operation(f.get("op"))
        hops = op.messages if op is not None else None
        ids = run.live_ids(start)
        try:
            truth = owner(ids, int(f["key"]))
            verdict = "right" if truth is not None and int(f.get("owner", -1)) == truth else "wrong"
        except (KeyError, TypeError, ValueError):
            truth, verdict = None, "wrong"
        if verdict == "right" and len(set(ids)) < len(ids):
            verdict = "ambiguous"   # several nodes claim the owner's id: no answer can be right
        if verdict == "right" and local_reach is not None and truth is not None:
            witnesses = {r["node"]} | (op.nodes if op is not None else set())
            if not any(_could_know(run, ids, k, start, truth, int(local_reach)) for k in witnesses):
                verdict = "unfounded"
        out.append(Lookup(r["t"], verdict, r, truth, hops))
    out += [Lookup(r["t"], "unanswered", r) for r in run.metric("lookup_failed") if after <= r["t"] < until]
    # a lookup the harness started whose node never said how it ended (it left, or ended itself)
    ended = {(r["node"], (r.get("fields") or {}).get("seq")) for r in run.metric("lookup_latency") + run.metric("lookup_failed")}
    out += [Lookup(r["t"], "unanswered", r) for r in run.metric("lookup_started")
            if after <= r["t"] < until and (r["node"], (r.get("fields") or {}).get("seq")) not in ended
            and not _churned_out(run, r["node"], r["t"]) and not _in_flight_at_end(run, r)]
    out += _missing_lookups(run, out, after, until)
    out.sort(key=lambda x: x.t)
    return out


def _missing_lookups(run: RunData, judged: list[Lookup], after: float, until: float) -> list[Lookup]:
    """The lookups nodes that ended on their own did not make: as many as the nodes that stayed
    made on average from the moment each one left, at the instants theirs ended. Unanswered."""
    if not run.dropped:
        return []
    stayed = {x.record["node"] for x in judged} - set(run.dropped)
    missing = []
    for k, gone in sorted(run.dropped.items()):
        since = max(gone, after)
        theirs = sorted(x.t for x in judged if x.record["node"] in stayed and since <= x.t < until)
        # one in len(stayed) of the others' lookups: the share of one node, spread like theirs
        for t in theirs[len(stayed) // 2::max(1, len(stayed))]:
            missing.append(Lookup(t, "unanswered", {"node": k, "t": t, "fields": {}}))
    return missing


def _in_flight_at_end(run: RunData, r: dict[str, Any]) -> bool:
    """Started less than its timeout before the run's end: it may still have been on its way."""
    try:
        return r["t"] + float((r.get("fields") or {}).get("timeout", 0)) >= run.duration
    except (TypeError, ValueError):
        return False


def _churned_out(run: RunData, k: int, t: float) -> bool:
    """The scenario removed node k after t (its lookup in flight ended with it, not by its fault)."""
    return any(k == node and at >= t for at, node in run.churn_leaves)


def lookups_message(judged: list[Lookup], run: RunData, min_rate: float) -> tuple[float, str]:
    right = sum(x.right for x in judged)
    counts = defaultdict(int)
    for x in judged:
        counts[x.verdict] += 1
    rate = right / len(judged)
    msg = (f"{right} of {len(judged)} lookups found the key's owner ({rate:.1%}, needed {min_rate:.0%}); "
           f"{counts['wrong']} answered a wrong node, {counts['unanswered']} got no answer")
    if counts["ambiguous"]:
        msg += f", {counts['ambiguous']} were judged against an id several nodes claim (not counted)"
    missing = sum(1 for x in judged if x.verdict == "unanswered" and "key" not in (x.record.get("fields") or {}))
    if missing:
        msg += f" ({missing} of them never asked: their nodes had ended on their own)"
    if counts["unfounded"]:
        msg += (f", {counts['unfounded']} were answered although no node they reached has the owner among its "
                f"successors (answers from knowledge a Chord node does not have: not counted)")
    example = next((x for x in judged if x.verdict == "wrong"), None)
    if example:
        f = example.record.get("fields") or {}
        msg += f"; e.g. key {f.get('key')} answered {f.get('owner')}, its owner is {example.truth}"
    return rate, msg


@library_check("lookup_success", min_rate=0.99, after=0, local_reach=None)
def lookup_success(ctx: Context) -> Outcome:
    p = ctx.params
    judged = judge_lookups(ctx.run, float(p["after"]), local_reach=p["local_reach"])
    if not judged:
        return Outcome(0, "no lookup was recorded: did find_successor answer at all?")
    rate, msg = lookups_message(judged, ctx.run, p["min_rate"])
    return Outcome(min(1.0, rate / p["min_rate"]) if p["min_rate"] > 0 else 1.0, msg, rate >= p["min_rate"])


def right_lookups(run: RunData, local_reach: int | None = None) -> tuple[list[Lookup], str | None]:
    """The lookups that found the true owner, or why there are too few to judge their hops or
    latency (a node that answers itself at once is fast, not right)."""
    judged = judge_lookups(run, local_reach=local_reach)
    right = [x for x in judged if x.right]
    if not judged:
        return [], "no lookup was recorded"
    if len(right) < 0.5 * len(judged):
        return [], f"only {len(right)} of {len(judged)} lookups found the key's owner: too few to judge"
    return right, None


def _claimed(lookups: list[Lookup]) -> str:
    claimed = []
    for x in lookups:
        try:
            claimed.append(float((x.record.get("fields") or {})["claimed_hops"]))
        except (KeyError, TypeError, ValueError):
            continue
    return f"; the submission claimed a mean of {sum(claimed) / len(claimed):.2f}" if claimed else ""


@library_check("hop_bound", needs_reference=True, stat="mean", factor=0.5, plus=1, min_ratio=0.4, local_reach=None)
def hop_bound(ctx: Context) -> Outcome:
    """Hops per right lookup = rpc calls the trace attributes to it: at most factor x log2 N + plus,
    and not far below the reference's (min_ratio): fewer messages than routing needs means the
    answer came from elsewhere."""
    p = ctx.params
    lookups, why = right_lookups(ctx.run, p["local_reach"])
    if why:
        return Outcome(0, why)
    hops = [float(x.hops) for x in lookups if x.hops is not None]
    if not hops:
        return Outcome(0, "no lookup could be measured: the trace holds none of their operations")
    mid = sorted(x.t for x in lookups)[len(lookups) // 2]
    n = max(2, len(ctx.run.alive_at(mid)))
    bound = p["factor"] * math.log2(n) + p["plus"]
    value = stat(hops, p["stat"])
    msg = (f"hops measured from the trace: {p['stat']} {value:.2f} over {len(hops)} right lookups"
           f"{_claimed(lookups)}; bound {p['factor']:g} x log2({n}) + {p['plus']:g} = {bound:.2f}")
    ref_lookups, _ = right_lookups(reference_of(ctx), p["local_reach"])
    ref_hops = [float(x.hops) for x in ref_lookups if x.hops is not None]
    if ref_hops and p["min_ratio"]:
        ref_value = stat(ref_hops, p["stat"])
        msg += f"; the reference's {ref_value:.2f}"
        if ref_value > 0 and value < p["min_ratio"] * ref_value:
            return Outcome(0, msg + f": below {p['min_ratio']:g}x the reference's, lookups this short are "
                                    "not routed (not credible)", False)
    return Outcome(1 if value <= bound else bound / value, msg, value <= bound)


@library_check("latency_vs_reference", needs_reference=True, metric="lookup_latency", percentile=90,
               max_ratio=1.5, min_ratio=0.25, local_reach=None)
def latency_vs_reference(ctx: Context) -> Outcome:
    p = ctx.params
    ref_run = reference_of(ctx)
    if p["metric"] == "lookup_latency":   # the right answers only, on both sides
        right, why = right_lookups(ctx.run, p["local_reach"])
        if why:
            return Outcome(0, why)
        mine = [float(x.record["value"]) for x in right]
        ref = [float(x.record["value"]) for x in right_lookups(ref_run, p["local_reach"])[0]]
    else:
        mine, ref = ctx.run.values(p["metric"]), ref_run.values(p["metric"])
    return versus_reference(ctx.run, mine, ref, p["metric"], float(p["percentile"]), float(p["max_ratio"]),
                            float(p["min_ratio"] or 0), "latency")


def versus_reference(run: RunData, mine: list[float], ref: list[float], metric: str, pct: float, max_ratio: float,
                     min_ratio: float, what: str) -> Outcome:
    """A latency percentile against the reference's: at most max_ratio times it, and (min_ratio)
    not so far below it that the network could not have carried it: not credible."""
    if not ref:
        raise CheckError(f"the reference solution recorded no {metric} on run {run.name!r}")
    if not mine:
        return Outcome(0, f"no {what} was recorded ({metric})")
    a, b = percentile(mine, pct), percentile(ref, pct)
    ratio = a / b if b > 0 else (1.0 if a <= 0 else math.inf)
    msg = (f"p{pct:g} {what} {a * 1000:.1f} ms (measured by the runtime), the reference's {b * 1000:.1f} ms: "
           f"{ratio:.2f}x (allowed {max_ratio:g}x)")
    if min_ratio and ratio < min_ratio:
        return Outcome(0, msg + f"; below {min_ratio:g}x the reference's: faster than the messages it needs "
                                "can travel (not credible)", False)
    return Outcome(1 if ratio <= max_ratio else max_ratio / ratio, msg, ratio <= max_ratio)


@library_check("recovery_time", max_seconds=REQUIRED, bin=5, max_failure_rate=0.05, local_reach=None)
def recovery_time(ctx: Context) -> Outcome:
    run, p = ctx.run, ctx.params
    failure = run.largest_failure()
    if failure is None:
        raise CheckError(f"run {run.name!r} has no churn leave: recovery_time needs a failure scenario")
    failure_t, failed = failure
    judged = judge_lookups(run, failure_t, local_reach=p["local_reach"])
    if not judged:
        return Outcome(0, f"no lookup ended after the failure at {failure_t:.1f} s")
    size = float(p["bin"])
    bins: dict[int, list[bool]] = defaultdict(list)
    for x in judged:
        bins[int((x.t - failure_t) // size)].append(x.right)
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
