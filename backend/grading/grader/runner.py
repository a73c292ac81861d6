"""One grading run: the submission (or the reference) as app.lua with the assignment's harness,
under a run of the spec, as `./splaylab run --harness` makes it: simulated in this process
(sandbox/run_sim.py's sim_records), live through run_local.py with --trace; its records those
of docs/simulation.md's JSONL, trace and harness records included.
The runner applies the daemons' output limits (docs/architecture.md "Output limits"); a run
they capped says so (`output_warnings`: the runner's own limit records, never an app's line
with the same words), and the report shows it to the student.

Reference runs in simulation are deterministic (docs/simulation.md), so their records are kept in
a cache keyed by everything that decides them: the app, the harness, the run, the scenario's text
and the runtime's own code. Fifty submissions of one assignment run the reference once.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .spec import ROOT, SANDBOX, RunSpec
from .trace_tally import TraceTally

if str(SANDBOX) not in sys.path:
    sys.path.insert(0, str(SANDBOX))
from run_records import loads_json as parse_json  # noqa: E402  (sandbox/run_records.py: json.loads, faster)

RUN_LOCAL = SANDBOX / "run_local.py"
# The trace rows a grading run's node lists before it sums them (docs/trace.md: rows of the same
# type, peer, name, outcome and operation add up, the earliest instant and the deepest call
# kept). The checks read sums, sets of peers and operations (trace_tally.py), which listed and
# summed rows give alike; summed, a chord grade's trace is ~12 times smaller to write and read.
TRACE_MAX = 1
DEFAULT_CACHE = ROOT / "var" / "grading-cache"


@dataclass
class RunResult:
    run: RunSpec
    records: list[dict[str, Any]]
    wall_s: float
    failure: str | None = None          # the runner's own complaint (a limit, a crash), if any
    cached: bool = False
    stderr_tail: list[str] = field(default_factory=list)
    # what the grader derives from a cached result (its RunData), kept with it: read only
    derived: dict[str, Any] = field(default_factory=dict)
    # a simulated run's trace, summed while it ran (None: RunData reads it from the records)
    trace_tally: TraceTally | None = None


# A simulated submission may take SIM_BOUND_FACTOR times the wall time its reference took (for a
# cached reference, when it ran), at least SIM_BOUND_FLOOR_S; without a reference time (it
# failed), SIM_BOUND_MAX_S. A submission that does far more work than the reference (a flood of
# messages) then holds a grading worker for minutes, not half an hour (docs/grading.md).
SIM_BOUND_FACTOR, SIM_BOUND_FLOOR_S, SIM_BOUND_MAX_S = 20, 120.0, 1800.0


def sim_wall_bound(reference: RunResult | None) -> tuple[float, str]:
    """A simulated submission's wall-time bound, and the words that explain it."""
    if reference is None or reference.failure or reference.wall_s <= 0:
        return SIM_BOUND_MAX_S, "the bound of every simulated run"
    bound = max(SIM_BOUND_FLOOR_S, SIM_BOUND_FACTOR * reference.wall_s)
    return bound, (f"a simulated run may take {SIM_BOUND_FACTOR:g} times the reference's "
                   f"{reference.wall_s:.1f} s, and at least {SIM_BOUND_FLOOR_S:g} s")


# The cached runs this process read last: a worker grading a class's submissions of one assignment
# reads the reference's records (megabytes of JSON) and derives its facts once, not per submission.
RECENT_RUNS = 4
_recent: OrderedDict[str, RunResult] = OrderedDict()


def runtime_digest() -> str:
    """The runtime's code: a change to it may change a simulation's records."""
    h = hashlib.sha256()
    files = sorted((SANDBOX / "lib").rglob("*.lua")) + [SANDBOX / n for n in
                                                          ("sim.lua", "node.lua", "simulate.py", "run_local.py",
                                                           "run_records.py", "netmodel.py",
                                                           "netmodel_placement.py")]
    files += sorted((SANDBOX / "churn").glob("*.py"))   # the churn package
    files.append(ROOT / "daemon" / "splayd" / "output_limits.py")   # the output limits' numbers and words
    for p in files:
        if p.is_file():
            h.update(p.relative_to(ROOT).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def output_warnings(records: list[dict[str, Any]]) -> list[str]:
    """What the output limits cut from a run, in the student's words, from the runner's own limit
    records (they carry `limit`: an app cannot write that field): "output capped: 27,000 lines
    dropped by the log rate limit (2 nodes)", "output capped: job output limit of 50 MB reached
    at 3.2 s, further output dropped"."""
    warnings = []
    rate = [r for r in records if r.get("limit") == "rate"]
    if rate:
        dropped = sum(int(r.get("dropped") or 0) for r in rate)
        nodes = len({r.get("node") for r in rate})
        warnings.append(f"output capped: {dropped:,} line{'s' if dropped != 1 else ''} dropped by the log rate "
                        f"limit ({nodes} node{'s' if nodes != 1 else ''})")
    for r in records:
        if r.get("limit") == "budget":
            what = str(r.get("text", "")).removeprefix("log budget: ").replace(" reached,", f" reached at {r['t']:g} s,")
            warnings.append(f"output capped: {what}")
            break
    return warnings


def grading_key() -> bytes:
    """This installation's secret for grading seeds: SPLAYLAB_GRADING_KEY, else var/grading-key
    (made once, 0600). SPLAYLAB_GRADING_KEY=off runs the spec's seeds as they are (experiments
    that must reproduce them, the assignment tests): a submission could then replay the draws."""
    given = os.environ.get("SPLAYLAB_GRADING_KEY")
    if given:
        return given.encode()
    path = ROOT / "var" / "grading-key"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path.with_suffix(f".{os.getpid()}.tmp"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
        path.with_suffix(f".{os.getpid()}.tmp").replace(path)
    return path.read_text().strip().encode()


def run_seed(run: RunSpec) -> int:
    """The seed a grading run really gets: the spec's seed mixed with the installation's secret.
    The same on every grading here (the reference cache and reproducible reports hold), but a
    submission cannot know it, so it cannot replay the other nodes' random draws (their ring ids)
    from the seed and its position (docs/grading.md, "What the grader trusts"). 31 bits: far too
    many to search from inside a run's CPU limit."""
    key = grading_key()
    if key == b"off":
        return run.seed
    digest = hmac.new(key, f"grading-seed:{run.seed}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def _cache_key(app: str, harness: str | None, run: RunSpec, churn_text: str | None) -> str:
    blob = json.dumps({"app": app, "harness": harness, "run": run.key(), "seed": run_seed(run), "churn": churn_text,
                       "trace_max": TRACE_MAX,
                       "runtime": runtime_digest()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def execute(app: str, run: RunSpec, churn_text: str | None = None, *, harness: str | None = None,
            cache_dir: Path | None = None, timeout: float | None = None, timeout_why: str = "") -> RunResult:
    """Run app (Lua source) under run, with the assignment's harness (Lua source) loaded before it;
    with cache_dir, simulated runs are read from / written to it. Every run is traced. timeout:
    the wall-time bound (default: a live run's duration + 120 s, a simulation's SIM_BOUND_MAX_S),
    timeout_why what the failure says of it."""
    key = None
    if cache_dir is not None and run.mode == "sim":
        key = _cache_key(app, harness, run, churn_text)
        hit = cache_dir / f"{key}.json"
        recent = _recent.get(key)
        if recent is not None and hit.is_file():   # (a cache emptied by hand empties this one too)
            _recent.move_to_end(key)
            return recent
        if hit.is_file():
            data = parse_json(hit.read_text())
            result = RunResult(run=run, records=data["records"], wall_s=data["wall_s"], failure=data["failure"],
                               cached=True)
            _recent[key] = result
            while len(_recent) > RECENT_RUNS:
                _recent.popitem(last=False)
            return result
    result = _run(app, harness, run, churn_text, timeout, timeout_why)
    if key is not None and cache_dir is not None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=cache_dir, prefix=f".{key}.", suffix=".tmp", delete=False) as f:
            json.dump({"records": result.records, "wall_s": result.wall_s, "failure": result.failure}, f)
        Path(f.name).replace(cache_dir / f"{key}.json")   # atomic: concurrent graders never read half a file
    return result


def run_argv(folder: Path, app: str, harness: str | None, run: RunSpec, churn_text: str | None) -> list[str]:
    """run_local.py's command line for one grading run, its files (app.lua, harness.lua, the
    scenario) written into `folder` and its records to folder/records.jsonl (also what
    bench/sim_instructions.py --assignment simulates)."""
    (folder / "app.lua").write_text(app, encoding="utf-8")
    argv = [sys.executable, str(RUN_LOCAL), str(folder / "app.lua"), "--time", f"{run.time:g}",
            "--seed", str(run_seed(run)), "--out", str(folder / "records.jsonl"), "--quiet"]
    if harness is not None:
        (folder / "harness.lua").write_text(harness, encoding="utf-8")
        argv += ["--harness", str(folder / "harness.lua")]
    if run.mode == "sim":
        argv += ["--sim", "--sim-transport", run.transport]      # (a simulation is always traced)
    else:
        argv.append("--trace")
    argv += ["--trace-max", str(TRACE_MAX)]
    if run.learn:
        argv.append("--trace-learn")
    if run.net:
        argv += ["--net", run.net]
    if churn_text is not None:
        (folder / "scenario.churn").write_text(churn_text, encoding="utf-8")
        argv += ["--churn", str(folder / "scenario.churn")]
    else:
        argv += ["--nodes", str(run.nodes)]
    return argv


def _run(app: str, harness: str | None, run: RunSpec, churn_text: str | None, timeout: float | None,
         timeout_why: str) -> RunResult:
    with tempfile.TemporaryDirectory(prefix="splaylab-grade-") as tmp:
        folder = Path(tmp)
        argv = run_argv(folder, app, harness, run, churn_text)
        out = folder / "records.jsonl"
        # a live run takes its duration plus start-up; a simulation its CPU, bounded generously
        limit = timeout if timeout is not None else (run.time + 120 if run.mode == "live" else SIM_BOUND_MAX_S)
        too_long = f"the run took more than {limit:g} s of wall time" + (f" ({timeout_why})" if timeout_why else "")
        if run.mode == "sim":
            return _simulate(run, argv[2:], limit, too_long)
        started = time.monotonic()
        failure = None
        try:
            p = subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=limit)
            stderr = [line for line in p.stderr.splitlines() if line.strip()]
            complaints = [line.removeprefix("run_local: ") for line in stderr if line.startswith("run_local: ")]
            if complaints:
                failure = complaints[-1]
            elif p.returncode not in (0, 1):
                failure = f"the run ended with status {p.returncode}: " + (stderr[-1] if stderr else "")
        except subprocess.TimeoutExpired:
            stderr = []
            failure = too_long
        wall = time.monotonic() - started
        records = []
        if out.is_file():
            for line in out.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    records.append(parse_json(line))
                except ValueError:
                    continue
        return RunResult(run=run, records=records, wall_s=wall, failure=failure, stderr_tail=stderr[-5:])


def _simulate(run: RunSpec, argv: list[str], limit: float, too_long: str) -> RunResult:
    """A simulated run in this process (run_sim.sim_records: the records as run_local.py's JSONL
    reads back, without its process, file and parsing: ~0.2 s of a ~1.6 s chord grade), for at
    most `limit` s of wall time; run_local's arguments and checks as they are."""
    import run_local  # sandbox/run_local.py
    import run_sim  # sandbox/run_sim.py

    started = time.monotonic()
    args, error = run_local.checked_args(argv)
    if error:
        return RunResult(run=run, records=[], wall_s=time.monotonic() - started, failure=error)
    deadline = started + limit
    # the trace is summed between the simulation's outputs, while it runs on the other core:
    # ~0.2 s of a chord grade that came after the run
    tally = TraceTally()
    code, records, failure, stderr = run_sim.sim_records(args, cancel=lambda: time.monotonic() > deadline,
                                                         each=tally.add_record)
    wall = time.monotonic() - started
    if failure is not None and wall > limit:
        failure = too_long
    elif failure is None and code not in (0, 1):
        failure = f"the run ended with status {code}: " + (stderr[-1] if stderr else "")
    return RunResult(run=run, records=records, wall_s=wall, failure=failure, stderr_tail=stderr,
                     trace_tally=tally)
