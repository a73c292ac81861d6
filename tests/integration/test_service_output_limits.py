"""The output limits across components (docs/architecture.md "Output limits"): a flooding node on
the service's daemons, in a simulated job on the service and in a grading run is capped with
the daemon's records, in the same words, PostgreSQL gets a bounded amount, and the grader's
report tells the student (sandbox/tests/test_runner_output_limits.py covers `./splaylab run [--sim]`)."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from grading.grader import grade, load_assignment

# sandbox/tests/apps/flood.lua: 10,000 lines a second per node, without end
FLOOD = (Path(__file__).resolve().parents[2] / "sandbox" / "tests" / "apps" / "flood.lua").read_text()
RATE_RECORD = re.compile(r"log rate limit: \d+ lines? dropped")


def descriptor(**keys: int) -> str:
    body = "".join(f"{k} {v}\n" for k, v in keys.items())
    return f"--[[\nBEGIN SPLAY RESOURCES RESERVATION\n{body}END SPLAY RESOURCES RESERVATION\n]]\n"


def stored_bytes(lines: list[dict]) -> int:
    """The app's stored output, as the budget counts it (level, tab, text, newline)."""
    return sum(len(ln["level"]) + len(ln["text"].encode()) + 2 for ln in lines if not ln["text"].startswith("log "))


def submit(stack, code: str, **fields) -> dict:
    job = stack.api("POST", "/api/jobs/", {"code": code, **fields})
    return stack.wait_job(job["id"], {"ENDED", "FAILED", "KILLED"}, timeout=90)


@pytest.mark.stack
def test_a_flooding_live_job_is_capped_by_the_daemons(stack) -> None:
    job = submit(stack, FLOOD, nodes=2, duration=3)
    assert job["state"] == "ENDED", job["reason"]
    lines = stack.logs(job["id"])
    for k in (1, 2):
        mine = [ln for ln in lines if ln["node"] == k]
        rate = [ln["text"] for ln in mine if ln["level"] == "warning" and ln["text"].startswith("log rate")]
        assert rate and all(RATE_RECORD.fullmatch(t) for t in rate)
        # 3 s and a little: at most four windows of 1,000 lines (without the limit: ~30,000)
        assert len([ln for ln in mine if ln["level"] == "print"]) <= 4000


@pytest.mark.stack
def test_a_live_jobs_budget_stops_its_output_and_the_job_runs_on(stack) -> None:
    budget = 40_000
    job = submit(stack, descriptor(log_max_size=budget) + FLOOD, nodes=2, duration=3)
    assert job["state"] == "ENDED", job["reason"]
    assert {i["exit_reason"] for i in job["instances"]} == {"killed: duration of 3 s reached"}
    lines = stack.logs(job["id"])
    spent = [ln for ln in lines if ln["text"].startswith("log budget")]
    daemons = len({i["daemon"] for i in job["instances"]})
    # each daemon holds the job's nodes it runs to the budget (docs/decisions.md "Output limits")
    assert 1 <= len(spent) <= daemons
    assert {ln["text"] for ln in spent} == {"log budget: job output limit of 39.1 KB reached, further output dropped"}
    assert stored_bytes(lines) <= budget * daemons


@pytest.mark.stack
def test_a_flooding_simulated_job_reaches_postgresql_capped(stack) -> None:
    budget = 200_000
    job = submit(stack, FLOOD, nodes=3, duration=5, mode="sim")
    assert job["state"] == "ENDED", job["reason"]
    lines = stack.logs(job["id"])
    per_node = Counter(ln["node"] for ln in lines if ln["level"] == "print")
    assert per_node == {1: 5000, 2: 5000, 3: 5000}   # 1,000 a virtual second, exactly
    rate = [ln for ln in lines if ln["level"] == "warning"]
    assert len(rate) == 15 and all(RATE_RECORD.fullmatch(ln["text"]) for ln in rate)

    capped = submit(stack, descriptor(log_max_size=budget) + FLOOD, nodes=3, duration=5, mode="sim")
    assert capped["state"] == "ENDED", capped["reason"]
    lines = stack.logs(capped["id"])
    assert [ln["text"] for ln in lines if ln["text"].startswith("log budget")] == [
        "log budget: job output limit of 195.3 KB reached, further output dropped"]
    assert budget - 200 < stored_bytes(lines) <= budget

    refused = submit(stack, descriptor(log_lines_per_second=5000) + FLOOD, nodes=1, duration=2, mode="sim")
    assert refused["state"] == "FAILED"
    assert refused["reason"] == "INVALID_LOG: asked 5000 log lines per second per node, the simulator allows 1000"


def tiny_assignment(tmp: Path, mode: str = "sim") -> Path:
    """One run of 3 nodes for 2 s; the only check: no runtime errors."""
    folder = tmp / "tiny"
    for part in ("starter", "reference"):
        (folder / part).mkdir(parents=True)
        (folder / part / "app.lua").write_text('require "splay.base"\nprint("hello")\n')
    (folder / "harness.lua").write_text("local h = ...\n")
    (folder / "README.md").write_text("# tiny\n")
    spec = {"title": "Tiny", "runs": [{"name": "one", "nodes": 3, "time": 2, "mode": mode}],
            "checks": [{"name": "clean", "check": "no_runtime_errors"}]}
    (folder / "assignment.yaml").write_text(yaml.safe_dump(spec))
    return folder


@pytest.mark.parametrize("mode", ["sim", "live"])
def test_a_grading_run_that_hit_the_limits_says_so_in_the_report(tmp_path: Path, mode: str) -> None:
    a = load_assignment(tiny_assignment(tmp_path, mode))
    (run,) = grade(a, FLOOD, cache_dir=tmp_path).to_dict()["runs"]
    (warning,) = run["warnings"]
    m = re.fullmatch(r"output capped: ([\d,]+) lines dropped by the log rate limit \(3 nodes\)", warning)
    assert m and int(m.group(1).replace(",", "")) > 3 * 5000, warning

    (run,) = grade(a, descriptor(log_max_size=30_000) + FLOOD, cache_dir=tmp_path).to_dict()["runs"]
    (budget,) = [w for w in run["warnings"] if "job output limit" in w]
    assert re.fullmatch(r"output capped: job output limit of 29\.3 KB reached at [\d.]+ s, further output dropped",
                        budget), budget


def test_an_app_printing_the_records_words_is_not_reported_capped(tmp_path: Path) -> None:
    a = load_assignment(tiny_assignment(tmp_path))
    forged = ('require "splay.base"\nlog.warning("log rate limit: 5000 lines dropped")\n'
              'log.warning("log budget: job output limit of 1 MB reached, further output dropped")\n')
    (run,) = grade(a, forged, cache_dir=tmp_path).to_dict()["runs"]
    assert run["warnings"] == []
