"""SplayLab's grader (docs/grading.md): an assignment folder's runs and checks applied to one
submission. Pure Python, no Django: `./splaylab grade` and the service's grading task call
`grade()` alike.

    a = load_assignment("assignments/chord")
    report = grade(a, open("mine.lua").read())
    report.to_dict()["score"]
"""
from __future__ import annotations

import hashlib
import runpy
import tempfile
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from . import checks as library
from .run_logs import run_logs
from .runner import DEFAULT_CACHE, RunResult, execute, output_warnings, sim_wall_bound
from .spec import Assignment, CheckSpec, SpecError, assignment_from_texts, load_assignment
from .syntax import syntax_error

__all__ = ["Assignment", "Report", "SpecError", "assignment_from_texts", "grade", "load_assignment"]


@dataclass
class CheckResult:
    spec: CheckSpec
    outcome: library.Outcome

    @property
    def points(self) -> float:
        return round(self.spec.weight * self.outcome.score, 2)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.spec.name, "check": self.spec.check, "run": self.spec.run,
                "passed": bool(self.outcome.passed), "points": self.points, "max_points": self.spec.weight,
                "message": self.outcome.message, "hidden": self.spec.hidden}


# Metrics the report draws as CDFs, the submission's against the reference's on the same run.
PLOT_METRICS = ("lookup_latency", "broadcast_delivered")


def quantiles(values: list[float]) -> list[float]:
    """101 points of a CDF (p0, p1, ... p100, nearest rank): enough to draw it, a few hundred
    bytes in the report however many samples the run had."""
    return [round(library.percentile(values, p), 6) for p in range(101)] if values else []


def _latencies(run: library.RunData, metric: str) -> list[float]:
    # a delivery's latency is computed from the harness's records' times (checks_traffic.broadcasts)
    return library.delivery_latencies(run) if metric == "broadcast_delivered" else run.values(metric)


def cdf_plots(mine: dict[str, library.RunData], ref: dict[str, library.RunData]) -> list[dict[str, Any]]:
    plots = []
    for name, run in mine.items():
        for metric in PLOT_METRICS:
            own = _latencies(run, metric)
            reference = _latencies(ref[name], metric) if name in ref else []
            if own or reference:
                plots.append({"run": name, "metric": metric, "unit": "s", "samples": len(own),
                              "submission": quantiles(own), "reference": quantiles(reference) or None})
    return plots


@dataclass
class Report:
    assignment: str
    submission_sha256: str
    checks: list[CheckResult]
    runs: list[dict[str, Any]] = field(default_factory=list)
    compile_error: str | None = None
    plots: list[dict[str, Any]] = field(default_factory=list)

    def _score(self, results: list[CheckResult]) -> float:
        total = sum(c.spec.weight for c in results)
        return round(100 * sum(c.spec.weight * c.outcome.score for c in results) / total, 1) if total else 0.0

    @property
    def score(self) -> float:
        return self._score(self.checks)

    def to_dict(self) -> dict[str, Any]:
        visible = [c for c in self.checks if not c.spec.hidden]
        return {"assignment": self.assignment, "score": self.score, "max_score": 100,
                "score_visible": self._score(visible), "submission_sha256": self.submission_sha256,
                "compile_error": self.compile_error, "runs": self.runs, "plots": self.plots,
                "checks": [c.to_dict() for c in self.checks]}


def _custom(assignment: Assignment, name: str) -> Callable[..., library.Outcome]:
    # checks.py is the instructors' own code (trusted, like the reference): run it as a module
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "checks.py"
        path.write_text(assignment.files["checks.py"], encoding="utf-8")
        namespace = runpy.run_path(str(path), run_name=f"assignment_{assignment.slug.replace('-', '_')}_checks")
    return namespace[name]


def grade(assignment: Assignment, source: str, *, live: bool = False, cache_dir: Path | None = DEFAULT_CACHE,
          on_run: Callable[[str, str], None] | None = None, transport: str | None = None) -> Report:
    """Grade source (the student's app.lua). live=True turns every run into a live run; transport
    ("fast", "sockets") sets how simulated runs carry rpc/urpc messages (default: the spec's, fast).
    on_run(who, run_name) is told before each run ("submission" or "reference")."""
    sha = hashlib.sha256(source.encode("utf-8")).hexdigest()
    error = syntax_error(source)
    if error:
        return Report(assignment.slug, sha, compile_error=error, checks=[
            CheckResult(c, library.Outcome(0, f"not run: the submission does not compile ({error})"))
            for c in assignment.checks])
    runs = {r.name: (replace(r, mode="live") if live else replace(r, transport=transport) if transport else r)
            for r in assignment.runs}
    used = {c.run for c in assignment.checks}
    visible = {c.run for c in assignment.checks if not c.hidden}   # runs whose logs students may read
    with_reference = {c.run for c in assignment.checks
                      if c.check.startswith("custom:") or library.LIBRARY[c.check].needs_reference}

    def data(result: RunResult) -> library.RunData:
        if "run_data" in result.derived:   # a cached reference run this process read before
            return result.derived["run_data"]
        r = result.run
        run_data = library.RunData(r.name, r.nodes, r.time, result.records, result.failure, learned=r.learn,
                                   tally=result.trace_tally)
        if result.cached:
            result.derived["run_data"] = run_data
        return run_data

    mine: dict[str, library.RunData] = {}
    ref: dict[str, library.RunData] = {}
    run_reports = []
    for name in [r.name for r in assignment.runs if r.name in used]:
        run = runs[name]
        churn_text = assignment.files.get(run.churn) if run.churn else None
        # the reference first (usually from the cache): a simulated submission's wall-time bound
        # is a multiple of the reference's (runner.sim_wall_bound)
        ref_result = None
        if name in with_reference or run.mode == "sim":
            if on_run:
                on_run("reference", name)
            ref_result = execute(assignment.reference, run, churn_text, harness=assignment.harness,
                                 cache_dir=cache_dir)
        bound, why = sim_wall_bound(ref_result) if run.mode == "sim" else (None, "")
        if on_run:
            on_run("submission", name)
        result = execute(source, run, churn_text, harness=assignment.harness, timeout=bound, timeout_why=why)
        mine[name] = data(result)
        entry = {"name": name, "mode": run.mode, "nodes": run.nodes, "time": run.time, "seed": run.seed,
                 "net": run.net, "churn": run.churn, "wall_s": round(result.wall_s, 2), "failure": result.failure,
                 "warnings": output_warnings(result.records)}
        if name in visible:
            entry["logs"] = run_logs(result.records)
        if name in with_reference and ref_result is not None:
            ref[name] = data(ref_result)
            entry["reference_wall_s"] = round(ref_result.wall_s, 2)
            entry["reference_cached"] = ref_result.cached
        run_reports.append(entry)

    results = []
    for c in assignment.checks:
        params = dict(library.LIBRARY[c.check].params) if not c.check.startswith("custom:") else {}
        params.update(c.params)
        ctx = library.Context(run=mine[c.run], reference=ref.get(c.run), params=params, runs=mine,
                              reference_runs=ref)
        try:
            if c.check.startswith("custom:"):
                outcome = _custom(assignment, c.check.split(":", 1)[1])(ctx, **c.params)
            else:
                outcome = library.LIBRARY[c.check].fn(ctx)
            if not isinstance(outcome, library.Outcome):
                raise library.CheckError(f"{c.check} returned {type(outcome).__name__}, not an Outcome")
        except library.CheckError as e:
            outcome = library.Outcome(0, f"grader error (tell your instructor): {e}", False)
        except Exception as e:  # noqa: BLE001 - one broken check must not lose the others' results
            where = traceback.extract_tb(e.__traceback__)[-1]
            outcome = library.Outcome(0, f"grader error (tell your instructor): {type(e).__name__}: {e} "
                                         f"({Path(where.filename).name}:{where.lineno})", False)
        results.append(CheckResult(c, outcome))
    return Report(assignment.slug, sha, results, run_reports, plots=cdf_plots(mine, ref))
