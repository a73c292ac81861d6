"""The Cyclon assignment's own checks (docs/grading.md, "Custom checks"), read from the harness's
`view` samples: value = view size, fields view = "pos,pos,..." (positions in job.nodes), round.

- indegree_spread: the standard deviation of the nodes' in-degrees, averaged over the samples
  from `after` seconds on. Cyclon keeps it well under a random graph's (views drawn at random:
  sqrt(size (1 - size / (N - 1)))), which a solution that never shuffles cannot do.
- distinct_views: every sampled view (from `after` seconds on) holds `size` distinct peers, never
  the node itself; strict where view_health, which averages five criteria, keeps most of its
  points for views that hold duplicates.
- dead_entries_cleared: after the scenario's largest failure, how long until the share of view
  entries that point to dead nodes stays at or under `max_dead_fraction` (not judged when most
  views hold fewer than half of `size` entries: a view that holds nothing holds no dead entry).
"""
from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from grading.grader.checks import CheckError, Context, Outcome, RunData


def _samples(run: RunData) -> list[tuple[float, dict[int, list[int]]]]:
    """(instant, {node: positions in its view}) per sampling round, in time order. Only the entries a
    message had brought the node count (RunData.learned_view: a view computed from job.nodes is no
    sample); a node that had ended on its own by then (the scenario wanted it alive) has an empty
    view."""
    rounds: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for r in run.metric("view"):
        rounds[(r.get("fields") or {}).get("round", round(r["t"]))].append(r)
    out = []
    for records in rounds.values():
        views = {}
        for r in records:
            raw = str((r.get("fields") or {}).get("view", ""))
            views[r["node"]] = run.learned_view(r["node"], r["t"], [int(x) for x in raw.split(",")
                                                                     if x.strip().lstrip("-").isdigit()])
        t = max(r["t"] for r in records)
        for k in run.dropped_at(t):
            views.setdefault(k, [])
        out.append((t, views))
    out.sort(key=lambda s: s[0])
    return out


def _indegrees(views: dict[int, list[int]]) -> dict[int, int]:
    """How many other sampled views hold each sampled node (duplicates count once)."""
    degree = {k: 0 for k in views}
    for k, view in views.items():
        for v in set(view):
            if v in degree and v != k:
                degree[v] += 1
    return degree


def _spread(run: RunData, after: float) -> tuple[float, float, int, int, int, int] | None:
    """(mean std, mean in-degree, min, max, rounds, nodes) over the samples from `after` on."""
    rounds = [(t, v) for t, v in _samples(run) if t >= after and v]
    if not rounds:
        return None
    stds, means, lo, hi = [], [], math.inf, 0
    for _, views in rounds:
        d = list(_indegrees(views).values())
        mean = sum(d) / len(d)
        stds.append(math.sqrt(sum((x - mean) ** 2 for x in d) / len(d)))
        means.append(mean)
        lo, hi = min(lo, min(d)), max(hi, max(d))
    return (sum(stds) / len(stds), sum(means) / len(means), int(lo), int(hi), len(rounds),
            len(rounds[-1][1]))


def indegree_spread(ctx: Context, size: int, max_std: float, after: float = 0) -> Outcome:
    got = _spread(ctx.run, after)
    if got is None:
        return Outcome(0, f"no view was sampled from {after:g} s on (the harness reads the global `view`)")
    std, mean, lo, hi, count, n = got
    if mean < 0.9 * size:
        return Outcome(0, f"nodes are in {mean:.1f} views on average (views of {size} would give {size}): "
                          f"views too small to judge the in-degree spread (min {lo}, max {hi})")
    random_std = math.sqrt(size * (1 - size / max(2, n - 1)))
    msg = (f"in-degree std {std:.2f} (mean of {count} samples from {after:g} s; min {lo}, max {hi}), "
           f"allowed {max_std:g}; views drawn at random would give {random_std:.2f}")
    ref = _spread(ctx.reference_runs[ctx.run.name], after) if ctx.run.name in ctx.reference_runs else None
    if ref is not None:
        msg += f", the reference solution {ref[0]:.2f}"
    if std <= max_std:
        return Outcome(1, msg)
    # partial credit falls to 0 at a random graph's spread
    score = (random_std - std) / (random_std - max_std) if random_std > max_std else max_std / std
    return Outcome(score, msg, False)


def distinct_views(ctx: Context, size: int, after: float = 0) -> Outcome:
    total = bad = 0
    example = ""
    for t, views in _samples(ctx.run):
        if t < after:
            continue
        for k, view in sorted(views.items()):
            total += 1
            others = set(view) - {k}
            if len(others) >= size and len(others) == len(view):
                continue
            bad += 1
            if not example:
                what = []
                if k in view:
                    what.append("itself")
                if len(set(view)) < len(view):
                    what.append(f"{len(view) - len(set(view))} duplicate(s)")
                if len(others) < size:
                    what.append(f"{len(others)} distinct peers")
                example = f"; e.g. node {k} at {t:.0f} s: {', '.join(what)}"
    if not total:
        return Outcome(0, f"no view was sampled from {after:g} s on (the harness reads the global `view`)")
    fraction = bad / total
    msg = (f"{total - bad} of {total} sampled views (from {after:g} s) hold {size} distinct peers other than "
           f"the node itself{example}")
    # strict: 10 % of bad views or more cost every point
    return Outcome(max(0.0, 1 - fraction / 0.1), msg, bad == 0)


def dead_entries_cleared(ctx: Context, max_seconds: float, max_dead_fraction: float = 0.05,
                         size: int | None = None) -> Outcome:
    run = ctx.run
    failure = run.largest_failure()
    if failure is None:
        raise CheckError(f"run {run.name!r} has no churn leave: dead_entries_cleared needs a failure scenario")
    failure_t, failed = failure
    after = []
    for t, views in _samples(run):
        if t < failure_t - 0.05 or not views:
            continue
        entries = sum(len(v) for v in views.values())
        dead = sum(1 for v in views.values() for p in v if not run.alive(p, t))
        after.append((t, dead / entries if entries else 0.0))
    head = f"{failed} nodes failed at {failure_t:.0f} s"
    if not after:
        return Outcome(0, f"{head}; no view was sampled after it (the harness reads the global `view`)")
    last_views = next(v for t, v in reversed(_samples(run)) if t >= failure_t - 0.05 and v)
    small = sum(1 for v in last_views.values() if len(v) < (0.5 * size if size else 1))
    if small > len(last_views) / 2:
        # views that hold (almost) nothing hold no dead entry either: nothing to judge
        return Outcome(0, f"{head}; {small} of {len(last_views)} nodes hold "
                          f"{'fewer than half a view' if size else 'an empty view'} at the end: too few entries "
                          "to judge")
    peak = max(f for _, f in after)
    if peak <= max_dead_fraction:
        return Outcome(1, f"{head}; at most {peak:.1%} of view entries pointed to dead nodes afterwards "
                          f"(allowed {max_dead_fraction:.0%})")
    cleared = None
    for t, f in reversed(after):
        if f > max_dead_fraction:
            break
        cleared = t
    msg = f"{head}; {peak:.1%} of view entries pointed to dead nodes"
    if cleared is None:
        last_t, last_f = after[-1]
        never = ": dead peers are never dropped" if last_f >= 0.8 * peak else ""
        return Outcome(0, f"{msg}, still {last_f:.1%} {last_t - failure_t:.0f} s after the failure "
                          f"(allowed {max_dead_fraction:.0%} within {max_seconds:g} s){never}")
    took = cleared - failure_t
    msg += f", {max_dead_fraction:.0%} or fewer from {took:.0f} s after the failure (allowed {max_seconds:g} s)"
    return Outcome(1 if took <= max_seconds else max_seconds / took, msg, took <= max_seconds)
