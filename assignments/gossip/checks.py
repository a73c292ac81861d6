"""The epidemic-broadcast assignment's own checks (docs/grading.md, "Custom checks").

They read the harness's records: broadcast_sent / broadcast_delivered (docs/grading.md) and
gossip_traffic, one per node every 10 s while it has something to say: value = calls of the
submission's receive(msg) in those seconds, fields delivered (first deliveries) and duplicates
(deliver called again for a message the node had delivered).
"""
from __future__ import annotations

from grading.grader.checks import Context, Outcome


def _traffic(run) -> tuple[float, int, int, int]:
    """(calls of receive, first deliveries, duplicate deliveries, nodes with duplicates)."""
    calls = delivered = duplicates = 0
    dup_nodes = set()
    for r in run.metric("gossip_traffic"):
        f = r.get("fields") or {}
        calls += float(r["value"])
        delivered += int(f.get("delivered", 0))
        if int(f.get("duplicates", 0)):
            duplicates += int(f["duplicates"])
            dup_nodes.add(r["node"])
    return calls, delivered, duplicates, len(dup_nodes)


def message_cost(ctx: Context, max_per_delivery: float) -> Outcome:
    """Calls of receive per first delivery, over the whole run, at most max_per_delivery."""
    calls, delivered, _, _ = _traffic(ctx.run)
    if delivered == 0:
        return Outcome(0, "no node delivered a message: there is no delivery to price")
    if calls == 0:
        return Outcome(0, f"{delivered} deliveries but receive(msg) was never called: gossip must travel "
                          "as rpc calls of the global receive")
    cost = calls / delivered
    ref = ""
    if ctx.reference is not None:
        rcalls, rdelivered, _, _ = _traffic(ctx.reference)
        if rdelivered:
            ref = f" (the reference's {rcalls / rdelivered:.1f})"
    ok = cost <= max_per_delivery
    msg = (f"{calls:g} messages received for {delivered} deliveries: {cost:.1f} per delivery{ref}, "
           f"allowed {max_per_delivery:g}")
    if not ok:
        msg += ": push each new message to FANOUT peers, once"
    return Outcome(1 if ok else max_per_delivery / cost, msg, ok)


def delivered_once(ctx: Context) -> Outcome:
    """deliver(msg) is called once per message and node, however many copies arrive."""
    _, delivered, duplicates, nodes = _traffic(ctx.run)
    if delivered == 0:
        return Outcome(0, "no node delivered a message")
    if duplicates:
        return Outcome(0, f"{duplicates} duplicate deliveries at {nodes} node(s) besides {delivered} first ones: "
                          "deliver(msg) only the first copy of a message")
    return Outcome(1, f"{delivered} deliveries, none twice")
