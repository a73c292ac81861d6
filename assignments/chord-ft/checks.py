"""The fault-tolerant Chord assignment's own checks (docs/grading.md, "Custom checks").

successor_lists: the library's ring_correct judges the successor and the predecessor, not the
successor list the harness also reports (`succs`); this one does.

lookup_success_before_failure: the library's lookup_success judges the lookups that end after a
given instant (`after`) but has no upper bound, so it cannot judge the ring before the scenario's
failure alone. This one judges the lookups that end in [after, the failure instant), the
failure instant found as recovery_time finds it (the instant of the scenario's largest leave),
with the library's judgement (checks_ring.judge_lookups: the key's owner among the live ids at
the lookup's start, and with local_reach, only answers some node of the lookup could know).
"""
from __future__ import annotations

from grading.grader.checks import Outcome, judge_lookups, lookups_message


def _failure_instant(run) -> float | None:
    failure = run.largest_failure()
    return failure[0] if failure else None


def lookup_success_before_failure(ctx, min_rate: float = 0.99, after: float = 0, local_reach: int | None = None) -> Outcome:
    run = ctx.run
    failure_t = _failure_instant(run)
    until = failure_t if failure_t is not None else float("inf")
    judged = judge_lookups(run, after, until, local_reach)
    span = f"between {after:g} s and the failure at {until:.1f} s" if failure_t is not None else f"after {after:g} s"
    if not judged:
        return Outcome(0, f"no lookup ended {span}: did find_successor answer at all?")
    rate, msg = lookups_message(judged, run, min_rate)
    return Outcome(min(1.0, rate / min_rate) if min_rate > 0 else 1.0, f"{span}: {msg}", rate >= min_rate)


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
