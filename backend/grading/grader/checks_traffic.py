"""Checks on what the nodes sent (the runtime's trace) and on what spreads through them
(broadcasts, peer-sampling views).

Measured from the trace (docs/trace.md): messages and bytes per node and per operation, the
distinct peers each node reached by itself (calls, connects, datagrams): an O(N) membership
shows as a node that talks to everyone. Broadcast latencies are computed from the harness's
records' own times (sent at the origin, delivered at the receiver), never from a field of the
message.
"""
from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from .checks_ring import versus_reference
from .library import REQUIRED, CheckError, Context, Outcome, library_check, reference_of
from .rundata import NodeTraffic, RunData, stat

MEASURES = {
    "messages": lambda t: t.messages,
    "calls": lambda t: t.calls,
    "bytes": lambda t: t.bytes_out,
}


def _per_node(run: RunData, measure: str) -> dict[int, float]:
    if measure not in MEASURES:
        raise CheckError(f"unknown measure {measure!r} ({', '.join(MEASURES)})")
    return run.per_node(MEASURES[measure])


@library_check("peers_contacted", needs_reference=True, stat="p90", max_ratio=2.0, plus=2, min_traffic=0.2,
               operations=False)
def peers_contacted(ctx: Context) -> Outcome:
    """Distinct peers each node reached on its own account (outside the harness's operations,
    unless `operations`: an iterative lookup legitimately reaches the nodes of its path), against
    the reference's: at most max_ratio x the reference's statistic + plus. Nodes that send
    (almost) nothing contact few peers without doing anything right: below min_traffic x the
    reference's messages per node, there is too little traffic to judge."""
    p = ctx.params
    run, ref = ctx.run, reference_of(ctx)
    sent = list(_per_node(run, "messages").values())
    ref_sent = list(_per_node(ref, "messages").values())
    if ref_sent and stat(sent or [0.0], "mean") < p["min_traffic"] * stat(ref_sent, "mean"):
        return Outcome(0, f"the nodes sent {stat(sent or [0.0], 'mean'):,.0f} messages each on average, the "
                          f"reference's {stat(ref_sent, 'mean'):,.0f}: too little traffic to judge whom they talk to")
    def peers(t: NodeTraffic) -> set[int]:
        return t.peers if p["operations"] else t.own_peers

    mine = {k: int(v) for k, v in run.per_node(lambda t: len(peers(t))).items()}
    theirs = list(ref.per_node(lambda t: len(peers(t))).values())
    if not theirs:
        raise CheckError(f"the reference's trace of run {run.name!r} shows no peer contacted")
    if not mine:
        return Outcome(0, "no node sent any message: nothing to measure")
    value, ref_value = stat([float(v) for v in mine.values()], p["stat"]), stat(theirs, p["stat"])
    allowed = p["max_ratio"] * ref_value + p["plus"]
    top = max(mine, key=lambda k: (mine[k], -k))
    others = max(1, len(mine) - 1)
    msg = (f"node {top} contacted {mine[top]} of {others} other nodes"
           f"{'' if p['operations'] else ' on its own (outside the lookups and broadcasts the harness ran)'}; "
           f"{p['stat']} over nodes {value:g}, "
           f"the reference's {ref_value:g} (at most {max(theirs):g}): allowed {allowed:g}")
    ok = value <= allowed
    return Outcome(1 if ok else allowed / value, msg + ("" if ok else ": each node should talk to a few peers, "
                                                      "not to everyone"), ok)


@library_check("messages_vs_reference", needs_reference=True, measure="messages", stat="mean", max_ratio=2.0,
               min_ratio=0)
def messages_vs_reference(ctx: Context) -> Outcome:
    """Messages (or calls, bytes) per node over the run, against the reference's: at most
    max_ratio x, and at least min_ratio x (a protocol that sends nothing does not maintain
    anything)."""
    p = ctx.params
    mine = list(_per_node(ctx.run, p["measure"]).values())
    theirs = list(_per_node(reference_of(ctx), p["measure"]).values())
    if not theirs:
        raise CheckError(f"the reference's trace of run {ctx.run.name!r} is empty")
    value = stat(mine, p["stat"]) if mine else 0.0
    ref_value = stat(theirs, p["stat"])
    ratio = value / ref_value if ref_value > 0 else (1.0 if value <= 0 else float("inf"))
    msg = (f"{p['measure']} per node, {p['stat']}: {value:,.0f} measured from the trace, the reference's "
           f"{ref_value:,.0f}: {ratio:.2f}x (allowed {p['min_ratio']:g}x to {p['max_ratio']:g}x)")
    if ratio > p["max_ratio"]:
        return Outcome(p["max_ratio"] / ratio, msg, False)
    if ratio < p["min_ratio"]:
        return Outcome(ratio / p["min_ratio"] if p["min_ratio"] else 0, msg, False)
    return Outcome(1, msg)


def operation_costs(run: RunData, name: str) -> list[float]:
    return [float(o.messages) for o in run.operations.values() if o.name == name]


@library_check("operation_cost", needs_reference=True, operation=REQUIRED, stat="mean", max_ratio=2.0,
               min_ratio=0)
def operation_cost(ctx: Context) -> Outcome:
    """Messages per operation of that name (rpc calls the trace attributes to it), against the
    reference's."""
    p = ctx.params
    mine, theirs = operation_costs(ctx.run, p["operation"]), operation_costs(reference_of(ctx), p["operation"])
    if not theirs:
        raise CheckError(f"the reference ran no {p['operation']!r} operation on run {ctx.run.name!r}")
    if not mine:
        return Outcome(0, f"no {p['operation']!r} operation was measured")
    value, ref_value = stat(mine, p["stat"]), stat(theirs, p["stat"])
    ratio = value / ref_value if ref_value > 0 else (1.0 if value <= 0 else float("inf"))
    msg = (f"messages per {p['operation']}, {p['stat']}: {value:.1f} measured from the trace over {len(mine)}, "
           f"the reference's {ref_value:.1f}: {ratio:.2f}x (allowed {p['min_ratio']:g}x to {p['max_ratio']:g}x)")
    if ratio > p["max_ratio"]:
        return Outcome(p["max_ratio"] / ratio, msg, False)
    if ratio < p["min_ratio"]:
        return Outcome(0, msg + ": fewer messages than the operation needs (not credible)", False)
    return Outcome(1, msg)


# broadcasts ---------------------------------------------------------------------------------
def broadcasts(run: RunData) -> tuple[dict[str, tuple[float, int]], dict[tuple[str, int], float]]:
    """(message -> (sent at, origin), (message, node) -> latency of its first delivery), from the
    harness's broadcast_sent and broadcast_delivered records' own times."""
    sent: dict[str, tuple[float, int]] = {}
    for r in run.metric("broadcast_sent"):
        sent.setdefault(str((r.get("fields") or {}).get("msg")), (r["t"], r["node"]))
    got: dict[tuple[str, int], float] = {}
    for r in run.metric("broadcast_delivered"):
        msg = str((r.get("fields") or {}).get("msg"))
        if msg in sent and (msg, r["node"]) not in got:
            got[(msg, r["node"])] = max(0.0, r["t"] - sent[msg][0])
    return sent, got


def delivery_latencies(run: RunData) -> list[float]:
    return list(broadcasts(run)[1].values())


def broadcast_deliveries(run: RunData) -> tuple[int, int, int, tuple[str, float, int, int] | None]:
    """(deliveries, expected deliveries, messages sent, the worst-covered message as (msg, share,
    delivered, receivers)): each message is expected at every node alive when it was sent and still
    alive at the end of the run, its origin apart; a node that ended on its own still counts (the
    scenario wanted it there)."""
    sent, got = broadcasts(run)
    expected = delivered = 0
    worst = None
    end = run.duration - 0.001
    for msg, (t, origin) in sent.items():
        receivers = {k for k in run.alive_at(t) | run.dropped_at(t)
                     if run.alive(k, end) or k in run.dropped} - {origin}
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
    unfounded = ctx.run.metric("broadcast_unfounded")
    if unfounded:
        msg += (f"; {len(unfounded)} deliveries of messages that never reached the node by a message of "
                "their broadcast were not counted")
    return Outcome(min(1.0, fraction / p["min_fraction"]) if p["min_fraction"] > 0 else 1, msg,
                   fraction >= p["min_fraction"])


@library_check("broadcast_latency_vs_reference", needs_reference=True, percentile=90, max_ratio=1.5,
               min_coverage=0.5, min_ratio=0.25)
def broadcast_latency_vs_reference(ctx: Context) -> Outcome:
    p = ctx.params
    delivered, expected, _, _ = broadcast_deliveries(ctx.run)
    if expected and delivered < p["min_coverage"] * expected:
        # a broadcast that stops after one hop is fast, not good
        return Outcome(0, f"only {delivered} of {expected} deliveries happened: too few to judge their latency "
                          f"(needs {p['min_coverage']:.0%})")
    return versus_reference(ctx.run, delivery_latencies(ctx.run), delivery_latencies(reference_of(ctx)),
                            "broadcast_delivered", float(p["percentile"]), float(p["max_ratio"]),
                            float(p["min_ratio"] or 0), "delivery latency")


# views --------------------------------------------------------------------------------------
@library_check("views_learned", min_fraction=0.9, after=0)
def views_learned(ctx: Context) -> Outcome:
    """Every sampled view entry (from `after` s on) is a peer the node learned of from a message
    before the sample (the trace's `learned` rows: its address arrived in a request it served or a
    reply it got): peer sampling spreads descriptors by gossip, a view a node computes by itself
    from job.nodes is no sample of anything, however many of its entries it pings."""
    run, p = ctx.run, ctx.params
    run.needs_learned("where view entries came from")
    entries = known = 0
    worst: tuple[int, int, int, float] | None = None
    for r in run.metric("view"):
        if r["t"] < p["after"]:
            continue
        k, t = r["node"], r["t"]
        traffic = run.traffic.get(k)
        view = [int(x) for x in str((r.get("fields") or {}).get("view", "")).split(",") if x.strip().lstrip("-").isdigit()]
        have = sum(1 for v in view if traffic is not None and traffic.learned.get(v, math.inf) <= t)
        entries += len(view)
        known += have
        if view and (worst is None or have / len(view) < worst[1] / max(1, worst[2])):
            worst = (k, have, len(view), t)
    if not entries:
        return Outcome(0, f"no view entry was sampled from {p['after']:g} s on")
    fraction = known / entries
    msg = (f"{known} of {entries} sampled view entries (from {p['after']:g} s) are peers the node learned of from "
           f"a message ({fraction:.1%}, needed {p['min_fraction']:.0%})")
    if worst and worst[1] < worst[2]:
        msg += f"; e.g. node {worst[0]} at {worst[3]:.0f} s: {worst[1]} of {worst[2]}"
    ok = fraction >= p["min_fraction"]
    # strict: the points fall to 0 when half of the entries came from nowhere
    score = 1.0 if ok else max(0.0, (fraction - 0.5) / max(1e-9, p["min_fraction"] - 0.5))
    return Outcome(score, msg + ("" if ok else ": views a node computes by itself are no peer sampling"), ok)



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
    for k in run.dropped_at(t):   # ended on its own: the scenario wanted it, its view is empty
        sample.setdefault(k, {"node": k, "t": t, "fields": {"view": ""}})
    live = run.alive_at(t) | set(sample)
    want = min(int(p["size"]), max(1, len(live) - 1))
    full = clean = dead = entries = 0
    indegree: dict[int, int] = defaultdict(int)
    edges: dict[int, set[int]] = defaultdict(set)
    for k, r in sample.items():
        raw = str((r.get("fields") or {}).get("view", ""))
        # only entries a message brought count (peer sampling, not a view computed from job.nodes)
        view = run.learned_view(k, r["t"], [int(x) for x in raw.split(",") if x.strip().lstrip("-").isdigit()])
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
    msg = f"at {t:.0f} s: " + "; ".join(c[1] for c in criteria)
    if full < n / 2:   # views that hold (almost) nothing are trivially clean: not judged
        return Outcome(0, msg + ": most views are not full, too small to judge their health", False)
    return Outcome(score if not passed else 1.0, msg, passed)
