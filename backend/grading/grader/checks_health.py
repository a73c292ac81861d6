"""Checks on how the nodes ran: errors, limits, a bound on any of the harness's records.

Judged from trusted records only (rundata.py): the runner's exit records, the trace's served
calls that raised, the harness's `harness_error` records. The app's own log lines are quoted in
messages, to show the student the error text, never counted.
"""
from __future__ import annotations

import re
from typing import Any

from .library import REQUIRED, Context, Outcome, first_line, library_check, where
from .rundata import RunData, stat


def _churned_exit(run: RunData, r: dict[str, Any]) -> bool:
    return str(r.get("text", "")).startswith("left (churn") or any(
        k == r["node"] and abs(t - r["t"]) < 0.5 for t, k in run.churn_leaves)


def failed_exits(run: RunData, allow_early_exit: bool = True) -> list[dict[str, Any]]:
    """Exit records of nodes that ended with a failure (churn's kills and the run's end apart);
    allow_early_exit=False: a node that ended by itself before the run's end failed too."""
    return [r for r in run.exits() if not _churned_exit(run, r) and not str(r.get("text", "")).startswith("stopped")
            and (r.get("code") not in (0, None) or not allow_early_exit)]


def _last_error_text(run: RunData, node: int, before: float, pattern: re.Pattern[str] | None = None) -> str:
    """The node's last error line before `before` (the runtime writes a failure's traceback there),
    for the message only."""
    text = ""
    for r in run.logs("error", "warning"):
        if r.get("node") == node and r["t"] <= before + 0.001 and (
                r.get("level") == "error" if pattern is None else pattern.search(str(r.get("text", "")))):
            text = str(r.get("text", ""))
    return text


# splay.rpc logs the error of a served function as a warning (as SPLAY does); quoted as the example
RPC_RAISED = re.compile(r"\[splay\.u?rpc\] call to '[^']*' raised: ")


@library_check("no_runtime_errors", allow_early_exit=True)
def no_runtime_errors(ctx: Context) -> Outcome:
    """No node failed, ended by itself before the run's end (unless allow_early_exit), served a
    call that raised, or broke the harness's contract."""
    run = ctx.run
    if run.failure:
        return Outcome(0, f"the run failed: {run.failure}")
    failed = failed_exits(run, ctx.params["allow_early_exit"])
    raised = {k: t.errors for k, t in run.traffic.items() if t.errors}
    harness = run.metric("harness_error")
    if not failed and not raised and not harness:
        return Outcome(1, "no node raised an error")
    parts = []
    if failed:
        first = failed[0]
        text = _last_error_text(run, first["node"], first["t"]) if first.get("code") else ""
        text = text or (f"{first.get('text', '')} before the run's end" if first.get("code") == 0
                        else first.get("text", ""))
        parts.append(f"{len({r['node'] for r in failed})} node(s) failed; first, {where(first)}: {first_line(text)}")
    if raised:
        k = min(raised)
        example = _last_error_text(run, k, run.duration, RPC_RAISED)
        parts.append(f"{sum(raised.values())} call(s) served by {len(raised)} node(s) raised an error"
                     + (f"; e.g. node {k}: {first_line(example)}" if example else ""))
    if harness:
        parts.append(f"the harness found {len(harness)} problem(s); first, {where(harness[0])}: "
                     f"{first_line(str((harness[0].get('fields') or {}).get('text', '')))}")
    return Outcome(0, "; ".join(parts))


LIMIT_RE = re.compile(r"limit|out of memory|computed for more than", re.I)
EXIT_MEMORY = 4


@library_check("within_limits")
def within_limits(ctx: Context) -> Outcome:
    run = ctx.run
    if run.failure and LIMIT_RE.search(run.failure):
        return Outcome(0, f"the run was stopped: {run.failure}")
    for r in run.exits():
        text = str(r.get("text", ""))
        if r.get("code") == EXIT_MEMORY:
            return Outcome(0, f"{where(r)}: out of memory (the node's memory limit)")
        if LIMIT_RE.search(text) and not text.startswith("stopped"):
            return Outcome(0, f"{where(r)}: {first_line(text)}")
    return Outcome(1, "no node reached a resource limit")


@library_check("metric_bound", metric=REQUIRED, stat="mean", min=None, max=None, source="harness")
def metric_bound(ctx: Context) -> Outcome:
    """A bound on one of the harness's records; `source: app` reads the submission's own
    splay.metrics instead (not verified: the message says so)."""
    p = ctx.params
    app = p["source"] == "app"
    values = [float(r["value"]) for r in ctx.run.app_metric(p["metric"])] if app else ctx.run.values(p["metric"])
    try:
        value = stat(values, p["stat"])
    except ValueError:
        return Outcome(0, f"no {p['metric']} was recorded" + (" by the submission" if app else ""))
    lo, hi = p["min"], p["max"]
    ok = (lo is None or value >= lo) and (hi is None or value <= hi)
    bounds = " and ".join(x for x in (f">= {lo:g}" if lo is not None else "", f"<= {hi:g}" if hi is not None else "") if x)
    note = " (the submission's own records, as it reported them: not measured by the grader)" if app else ""
    return Outcome(1 if ok else 0, f"{p['stat']} of {p['metric']}: {value:g} (needed {bounds or 'anything'}){note}", ok)
