"""The checks library's frame (docs/grading.md): what a check returns (Outcome), what it sees
(Context), and the registry the spec's `check:` names point into. The checks themselves live in
checks_health.py, checks_ring.py and checks_traffic.py; checks.py gathers them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .errors import CheckError
from .rundata import RunData

__all__ = ["CheckError", "Context", "Outcome", "REQUIRED", "LIBRARY", "library_check"]

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


@dataclass
class Context:
    """What a check sees: its run's data, the reference's on the same run, and its parameters.
    `runs`/`reference_runs` hold every run of the spec by name (for custom checks)."""
    run: RunData
    reference: RunData | None
    params: dict[str, Any]
    runs: dict[str, RunData] = field(default_factory=dict)
    reference_runs: dict[str, RunData] = field(default_factory=dict)


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


def where(r: dict[str, Any]) -> str:
    return f"node {r.get('node')} at {float(r.get('t', 0)):.1f} s"


def first_line(text: str, limit: int = 240) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= limit else line[:limit] + "..."


def reference_of(ctx: Context) -> RunData:
    if ctx.reference is None:
        raise CheckError("no reference run to compare with")
    return ctx.reference

