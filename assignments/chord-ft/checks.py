"""The fault-tolerant Chord assignment's own checks (docs/grading.md, "Custom checks").

successor_lists: the library's ring_correct judges the successor and the predecessor, not the
successor list the harness also reports (`succs`); this one does.

lookup_success_before_failure: the library's lookup_success judges the lookups that end after a
given instant (`after`) but has no upper bound, so it cannot judge the ring before the scenario's
failure alone. This one judges the lookups that end in [after, the failure instant), the
failure instant found as recovery_time finds it (the instant of the scenario's largest leave),
with the library's truth: the key's owner among the live ids at the lookup's start.
"""
from __future__ import annotations

from grading.grader.checks import Outcome, owner


def _failure_instant(run) -> float | None:
    failure = run.largest_failure()
    return failure[0] if failure else None


def lookup_success_before_failure(ctx, min_rate: float = 0.99, after: float = 0) -> Outcome:
    run = ctx.run
    failure_t = _failure_instant(run)
    until = failure_t if failure_t is not None else float("inf")
    right = wrong = unanswered = 0
    example = ""
    for r in run.metric("lookup_latency"):
        if not after <= r["t"] < until:
            continue
        f = r.get("fields") or {}
        try:
            truth = owner(run.live_ids(r["t"] - float(r["value"])), int(f["key"]))
            ok = truth is not None and int(f.get("owner", -1)) == truth
        except (KeyError, TypeError, ValueError):
            truth, ok = None, False
        right += ok
        wrong += not ok
        if not ok and not example:
            example = f"; e.g. key {f.get('key')} answered {f.get('owner')}, its owner is {truth}"
    unanswered = sum(1 for r in run.metric("lookup_failed") if after <= r["t"] < until)
    total = right + wrong + unanswered
    span = f"between {after:g} s and the failure at {until:.1f} s" if failure_t is not None else f"after {after:g} s"
    if not total:
        return Outcome(0, f"no lookup ended {span}: did find_successor answer at all?")
    rate = right / total
    msg = (f"{right} of {total} lookups {span} found the key's owner ({rate:.1%}, needed {min_rate:.0%}); "
           f"{wrong} answered a wrong node, {unanswered} got no answer{example}")
    return Outcome(min(1.0, rate / min_rate) if min_rate > 0 else 1.0, msg, rate >= min_rate)


def successor_lists(ctx, r: int = 4, at: str = "last", min_fraction: float = 1.0) -> Outcome:
    """Each live node's list of successors (the harness's `succs` field) starts with the r ids
    that follow its own among the ids of the nodes reporting in the round (the last by default)."""
    run = ctx.run
    rounds = run.state_rounds()
    if not rounds:
        return Outcome(0, "no node_state records: the harness found no ring state to check")
    keys = sorted(rounds, key=lambda k: min(x["t"] for x in rounds[k]))
    if at == "last":
        states = rounds[keys[-1]]
    else:
        states = rounds[min(keys, key=lambda k: abs(min(x["t"] for x in rounds[k]) - float(at)))]
    ids = sorted({int(x["value"]) for x in states})
    want_len = min(int(r), len(ids) - 1)
    right, example = 0, ""
    for x in sorted(states, key=lambda x: x["node"]):
        me = int(x["value"])
        i = ids.index(me)
        want = [ids[(i + k) % len(ids)] for k in range(1, want_len + 1)]
        raw = str((x.get("fields") or {}).get("succs", ""))
        have = [int(v) for v in raw.split(",") if v.strip().lstrip("-").isdigit()]
        ok = have[:want_len] == want
        right += ok
        if not ok and not example:
            example = (f"; e.g. node {x['node']} (id {me}) keeps {','.join(map(str, have)) or 'no successor'}, "
                       f"the right ones are {','.join(map(str, want))}")
    fraction = right / len(states)
    msg = (f"{right} of {len(states)} live nodes keep their {want_len} next nodes as successors "
           f"(needed {min_fraction:.0%}){example}")
    return Outcome(1 if fraction >= min_fraction else fraction, msg, fraction >= min_fraction)
