"""A churn scenario as the editor's preview draws it (sandbox/churn/ does the work).

Model-free. `churn_preview(text, seed)` → errors (line, column, message: every bad line) or the
planned population, joins/leaves per bin (the SPLAY paper's figure 4), warnings and network
events. `churn_trace(text, ...)` → errors, or the scenario as SPLAY's trace format after the trace
tools (window, speed-up, amplitude)."""
from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

SANDBOX_DIR = Path(__file__).resolve().parents[2] / "sandbox"
if str(SANDBOX_DIR) not in sys.path:
    sys.path.append(str(SANDBOX_DIR))

import churn  # noqa: E402  (sandbox/churn/)

MAX_TEXT_BYTES = 1024 * 1024
TARGET_BINS = 60


def bin_width(duration: float) -> float:
    """About TARGET_BINS bins of a round width (1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10 min, ...)."""
    for w in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400):
        if duration / w <= TARGET_BINS:
            return float(w)
    return 86400.0 * math.ceil(duration / 86400 / TARGET_BINS)  # whole days: still about TARGET_BINS bins


def churn_load(text: str, seed: int) -> tuple[str | None, Any, list[dict[str, Any]]]:
    """(kind (None: too large to tell), schedule or None, errors): the one parse every use
    of a scenario's text goes through (sandbox/churn/'s limits included)."""
    if len(text.encode()) > MAX_TEXT_BYTES:
        return None, None, [{"line": 1, "column": 0, "message": "the scenario is larger than 1 MB"}]
    kind = churn.load_kind(text)
    errors = churn.script_errors(text) if kind == "script" else []
    plan = None
    if not errors:
        try:
            plan = churn.load(text, seed=seed)
        except churn.ChurnError as e:
            errors = [e]
    return kind, plan, [{"line": e.line, "column": e.column, "message": e.message} for e in errors]


def _failed(kind: str | None, errors: list[dict[str, Any]]) -> dict[str, Any]:
    return {"errors": errors} if kind is None else {"kind": kind, "errors": errors}


def churn_trace(text: str, seed: int = 1, start: float | None = None, end: float | None = None,
                speedup: float | None = None, amplitude: float | None = None) -> dict[str, Any]:
    """{errors} of the text, {errors: [], problem} of the tools' settings, or {errors: [],
    trace, nodes, dropped_network}: a trace has no network statements, they are counted."""
    kind, plan, errors = churn_load(text, seed)
    if plan is None:
        return _failed(kind, errors)
    try:
        nodes = churn.derive_trace(plan.trace(), start=start, end=end, speedup=speedup,
                                   amplitude=amplitude, seed=seed)
    except ValueError as e:
        return {"kind": kind, "errors": [], "problem": str(e)}
    return {"kind": kind, "errors": [], "trace": churn.trace_text(nodes), "nodes": len(nodes),
            "dropped_network": sum(1 for e in plan.events if e.kind not in ("join", "leave"))}


def churn_preview(text: str, seed: int = 1) -> dict[str, Any]:
    kind, plan, errors = churn_load(text, seed)
    if plan is None:
        return _failed(kind, errors)
    duration = plan.duration
    width = bin_width(duration)
    return {
        "kind": kind, "errors": [],
        "warnings": [{"line": line, "message": message} for line, message in plan.warnings],
        "nodes": plan.nodes, "duration": duration, "end": plan.end,
        "population": [[t, p] for t, p in churn.population_steps(plan.events)],
        "bin": width, "bins": [list(b) for b in churn.per_bin(plan.events, width)],
        "network": [{"t": e.t, "text": e.text()} for e in plan.events if e.kind not in ("join", "leave")],
    }
