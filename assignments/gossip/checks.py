"""The epidemic-broadcast assignment's own checks (docs/grading.md, "Custom checks").

Both judge only a run where at least half of the expected deliveries happened (a protocol that
delivers little is cheap, not good). message_cost reads the runtime's trace: the rpc calls made for each broadcast (every node's
calls carry the broadcast's operation id), over the deliveries the harness recorded. delivered_once
reads the harness's gossip_traffic records, one per node every 10 s while it has something to
say: fields delivered (first deliveries) and duplicates (deliver called again for a message the
node had delivered).
"""
from __future__ import annotations

from grading.grader.checks import Context, Outcome, broadcast_deliveries, operation_costs

MIN_COVERAGE = 0.5   # below it, a protocol that delivers little is cheap, not good: too few to judge


def _too_few(ctx: Context) -> str | None:
    delivered, expected, _, _ = broadcast_deliveries(ctx.run)
    if expected and delivered < MIN_COVERAGE * expected:
        return (f"only {delivered} of {expected} deliveries happened: too few to judge (needs "
                f"{MIN_COVERAGE:.0%})")
    return None


def _traffic(run) -> tuple[int, int, int]:
    """(first deliveries, duplicate deliveries, nodes with duplicates)."""
    delivered = duplicates = 0
    dup_nodes = set()
    for r in run.metric("gossip_traffic"):
        f = r.get("fields") or {}
        delivered += int(f.get("delivered", 0))
        if int(f.get("duplicates", 0)):
            duplicates += int(f["duplicates"])
            dup_nodes.add(r["node"])
    return delivered, duplicates, len(dup_nodes)


def message_cost(ctx: Context, max_per_delivery: float) -> Outcome:
    """Messages of the broadcasts (measured by the runtime) per first delivery, over the whole run,
    at most max_per_delivery."""
    delivered = len(ctx.run.metric("broadcast_delivered"))
    if delivered == 0:
        return Outcome(0, "no node delivered a message: there is no delivery to price")
    why = _too_few(ctx)
    if why:
        return Outcome(0, why)
    calls = sum(operation_costs(ctx.run, "broadcast"))
    if calls == 0:
        return Outcome(0, f"{delivered} deliveries but no rpc call was made for any broadcast: gossip must travel "
                          "as rpc calls of the global receive, made while handling the message")
    cost = calls / delivered
    ref = ""
    if ctx.reference is not None:
        rdelivered = len(ctx.reference.metric("broadcast_delivered"))
        if rdelivered:
            ref = f" (the reference's {sum(operation_costs(ctx.reference, 'broadcast')) / rdelivered:.1f})"
    ok = cost <= max_per_delivery
    msg = (f"{calls:g} messages sent for the broadcasts (counted by the runtime) for {delivered} deliveries: "
           f"{cost:.1f} per delivery{ref}, allowed {max_per_delivery:g}")
    if not ok:
        msg += ": push each new message to FANOUT peers, once"
    return Outcome(1 if ok else max_per_delivery / cost, msg, ok)


def delivered_once(ctx: Context) -> Outcome:
    """deliver(msg) is called once per message and node, however many copies arrive."""
    delivered, duplicates, nodes = _traffic(ctx.run)
    if delivered == 0:
        return Outcome(0, "no node delivered a message")
    why = _too_few(ctx)
    if why:
        return Outcome(0, why)
    if duplicates:
        return Outcome(0, f"{duplicates} duplicate deliveries at {nodes} node(s) besides {delivered} first ones: "
                          "deliver(msg) only the first copy of a message")
    return Outcome(1, f"{delivered} deliveries, none twice")
