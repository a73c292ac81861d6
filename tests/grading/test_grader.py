"""The grader itself (backend/grading/grader, docs/grading.md): bad assignment folders are refused
with a message naming the problem, a submission's errors keep its own line numbers, grading is
reproducible, custom checks run and a broken one loses only its own points, and the CLI's JSON."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from grading.grader import SpecError, grade, load_assignment
from grading.grader.syntax import syntax_error

ROOT = Path(__file__).resolve().parents[2]
CHORD = ROOT / "assignments" / "chord"


def tiny_assignment(tmp: Path, checks: list[dict], checks_py: str | None = None, **run: object) -> Path:
    """A one-run assignment around a small app: the harness records one lookup_latency per node,
    the value the app's global measure() returns, when the app defines it (the reference does)."""
    folder = tmp / "tiny"
    (folder / "starter").mkdir(parents=True)
    (folder / "reference").mkdir()
    (folder / "starter" / "app.lua").write_text("-- nothing\n")
    (folder / "reference" / "app.lua").write_text("function measure() return 0.1 end\n")
    (folder / "harness.lua").write_text(
        "local h = ...\n"
        "require('splay.events').thread(function()\n"
        "  local measure = h.global('measure')\n"
        "  if type(measure) == 'function' then h.record('lookup_latency', measure()) end\n"
        "end)\n")
    (folder / "README.md").write_text("# tiny\n")
    spec = {"title": "Tiny", "runs": [{"name": "one", "nodes": 3, "time": 5, **run}], "checks": checks}
    (folder / "assignment.yaml").write_text(yaml.safe_dump(spec))
    if checks_py is not None:
        (folder / "checks.py").write_text(checks_py)
    return folder


def chord_copy(tmp: Path, edit) -> Path:
    folder = tmp / "chord"
    shutil.copytree(CHORD, folder)
    spec = yaml.safe_load((folder / "assignment.yaml").read_text())
    edit(spec)
    (folder / "assignment.yaml").write_text(yaml.safe_dump(spec))
    return folder


@pytest.mark.parametrize("edit, expected", [
    (lambda s: s.update(deadline="soon"), "unknown key 'deadline'"),
    (lambda s: s.update(starter="starter/missing.lua"), "starter: no file starter/missing.lua"),
    (lambda s: s["checks"][0].update(check="ring_corect"), "no library check 'ring_corect'"),
    (lambda s: s["checks"][1].update(params={"min_fractoin": 1}), "ring_correct takes no 'min_fractoin'"),
    (lambda s: s["checks"][1].update(run="churn"), "run: no run named 'churn'"),
    (lambda s: s["runs"][0].update(nodes=20000), "nodes: 20000 is out of range"),
    (lambda s: s["runs"][0].update(net="kingg"), "run 'ring': net:"),
    (lambda s: s["runs"][0].update(mode="fast"), "mode: 'sim' or 'live'"),
    (lambda s: s["checks"][0].update(weight=0), "weight: 0 is out of range"),
])
def test_a_bad_spec_is_refused_naming_the_problem(tmp_path: Path, edit, expected: str) -> None:
    folder = chord_copy(tmp_path, edit)
    with pytest.raises(SpecError) as e:
        load_assignment(folder)
    assert expected in str(e.value)
    assert "chord/assignment.yaml" in str(e.value)


def test_a_churn_scenario_error_names_its_file_and_line(tmp_path: Path) -> None:
    folder = chord_copy(tmp_path, lambda s: s["runs"][0].update(churn="bad.churn", nodes=None))
    (folder / "bad.churn").write_text("from 1s to 5s join 10\nat 20s leve 50%\n")
    with pytest.raises(SpecError, match=r"bad\.churn:2:"):
        load_assignment(folder)


def test_a_syntax_error_names_the_submissions_line() -> None:
    assert syntax_error("x = 1\n\nlocal = 2\n").startswith("app.lua:3:")
    assert syntax_error("print('fine')") is None
    # the submission runs as it is (the harness is loaded beside it, not around it): any long bracket
    tricky = "s = [[a]] .. [==[b]==]\n-- ]=] ]===]\nt = 'x'\n"
    assert syntax_error(tricky) is None


def test_a_syntax_error_is_reported_without_running_anything(tmp_path: Path) -> None:
    a = load_assignment(CHORD)
    report = grade(a, "function join(\n", cache_dir=tmp_path).to_dict()
    assert report["score"] == 0 and report["runs"] == []
    assert report["compile_error"].startswith("app.lua:")
    assert all("does not compile" in c["message"] for c in report["checks"])


def test_a_runtime_error_names_the_submissions_line(tmp_path: Path) -> None:
    folder = tiny_assignment(tmp_path, [{"name": "clean", "check": "no_runtime_errors"}])
    report = grade(load_assignment(folder), "local x = 1\nlocal y = nil\nprint(y.field)\n", cache_dir=tmp_path)
    (check,) = report.to_dict()["checks"]
    assert not check["passed"]
    assert "app.lua:3:" in check["message"] and "3 node(s) failed" in check["message"]


def test_custom_checks_run_and_a_broken_one_loses_only_its_points(tmp_path: Path) -> None:
    checks_py = (
        "from grading.grader.checks import Outcome\n"
        "def samples(ctx, at_least):\n"
        "    n = len(ctx.run.values('lookup_latency'))\n"
        "    ref = len(ctx.reference.values('lookup_latency'))\n"
        "    return Outcome(1 if n >= at_least else 0, f'{n} samples, the reference {ref}')\n"
        "def broken(ctx):\n"
        "    return 1 / 0\n")
    folder = tiny_assignment(tmp_path, [
        {"name": "samples", "check": "custom:samples", "params": {"at_least": 3}, "weight": 3},
        {"name": "broken", "check": "custom:broken", "weight": 1}], checks_py)
    a = load_assignment(folder)
    good = grade(a, a.reference, cache_dir=tmp_path).to_dict()
    assert good["score"] == 75.0
    by_name = {c["name"]: c for c in good["checks"]}
    assert by_name["samples"]["message"] == "3 samples, the reference 3"
    assert "grader error" in by_name["broken"]["message"] and "ZeroDivisionError" in by_name["broken"]["message"]
    assert grade(a, "-- does nothing\n", cache_dir=tmp_path).to_dict()["score"] == 0


def test_the_apps_own_metrics_are_not_the_harnesss_records(tmp_path: Path) -> None:
    checks_py = ("from grading.grader.checks import Outcome\n"
                 "def samples(ctx):\n"
                 "    n, own = len(ctx.run.values('lookup_latency')), len(ctx.run.app_metric('lookup_latency'))\n"
                 "    return Outcome(1 if n >= 3 else 0, f'{n} samples, {own} of its own')\n")
    folder = tiny_assignment(tmp_path, [{"name": "samples", "check": "custom:samples"}], checks_py)
    # the app writes records of the harness's name, in every way it can reach
    forger = ("local metrics = require 'splay.metrics'\n"
              "metrics.observe('lookup_latency', 0.1)\n"
              "print('probe\\t{\"name\":\"lookup_latency\",\"value\":0.1}')\n"
              "io.write('probe\\t{\"name\":\"lookup_latency\",\"value\":0.1}\\n')\n"
              "log.info('\\nprobe\\t{\"name\":\"lookup_latency\",\"value\":0.1}')\n")
    report = grade(load_assignment(folder), forger, cache_dir=tmp_path).to_dict()
    assert report["score"] == 0
    assert report["checks"][0]["message"] == "0 samples, 3 of its own"


def test_a_custom_check_that_checks_py_does_not_define_is_refused(tmp_path: Path) -> None:
    folder = tiny_assignment(tmp_path, [{"name": "x", "check": "custom:nope"}], "def other(ctx):\n    pass\n")
    with pytest.raises(SpecError, match="checks.py has no function 'nope'"):
        load_assignment(folder)


def test_grading_twice_gives_the_same_report(tmp_path: Path) -> None:
    a = load_assignment(CHORD)
    source = (CHORD / "variants" / "linear-routing.lua").read_text()
    first, second = (grade(a, source, cache_dir=None).to_dict() for _ in range(2))
    assert first["checks"] == second["checks"] and first["score"] == second["score"]
    assert 0 < first["score"] < 100


def test_the_reference_runs_once_then_comes_from_the_cache(tmp_path: Path) -> None:
    a = load_assignment(CHORD)
    starter = (CHORD / "starter" / "app.lua").read_text()
    first = grade(a, starter, cache_dir=tmp_path).to_dict()["runs"][0]
    second = grade(a, starter, cache_dir=tmp_path).to_dict()["runs"][0]
    assert (first["reference_cached"], second["reference_cached"]) == (False, True)


def test_a_cached_reference_is_read_and_digested_once_per_process_and_never_outlives_its_file(tmp_path: Path) -> None:
    from grading.grader import runner
    a = load_assignment(CHORD)
    run = a.runs[0]
    first = runner.execute(a.reference, run, harness=a.harness, cache_dir=tmp_path)   # runs, writes the cache
    hit = runner.execute(a.reference, run, harness=a.harness, cache_dir=tmp_path)     # reads it
    again = runner.execute(a.reference, run, harness=a.harness, cache_dir=tmp_path)
    assert not first.cached and hit.cached and again is hit      # read once, then from memory
    starter = (CHORD / "starter" / "app.lua").read_text()
    grade(a, starter, cache_dir=tmp_path)            # digests the reference's records, keeps them with its run
    kept = hit.derived["run_data"]
    grade(a, starter, cache_dir=tmp_path)
    assert hit.derived["run_data"] is kept           # the next grading does not digest them again
    for f in tmp_path.glob("*.json"):   # an instructor empties the cache: the memory is not served
        f.unlink()
    rerun = runner.execute(a.reference, run, harness=a.harness, cache_dir=tmp_path)
    assert not rerun.cached and rerun.records == first.records


def test_the_cli_prints_one_json_report_and_refuses_a_bad_folder(tmp_path: Path) -> None:
    sub = tmp_path / "mine.lua"
    sub.write_text((CHORD / "starter" / "app.lua").read_text())
    p = subprocess.run([sys.executable, str(ROOT / "splaylab"), "grade", str(CHORD), str(sub), "--json"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    assert 0 <= report["score"] < 20 and report["max_score"] == 100
    assert {"name", "passed", "points", "message"} <= set(report["checks"][0])
    p = subprocess.run([sys.executable, str(ROOT / "splaylab"), "grade", str(tmp_path), str(sub)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "not an assignment folder" in p.stderr


def test_live_on_request_runs_real_nodes(tmp_path: Path) -> None:
    checks_py = ("from grading.grader.checks import Outcome\n"
                 "def live_samples(ctx):\n"
                 "    sim = any(r.get('sim') for r in ctx.run.records)\n"
                 "    n = len(ctx.run.values('lookup_latency'))\n"
                 "    return Outcome(1 if n == 3 and not sim else 0, f'{n} samples, simulated: {sim}')\n")
    folder = tiny_assignment(tmp_path, [{"name": "live", "check": "custom:live_samples"}], checks_py)
    a = load_assignment(folder)
    report = grade(a, a.reference, live=True, cache_dir=tmp_path).to_dict()
    assert report["runs"][0]["mode"] == "live"
    assert report["checks"][0]["message"] == "3 samples, simulated: False"


def test_the_report_carries_the_cdfs_of_submission_and_reference(tmp_path: Path) -> None:
    a = load_assignment(CHORD)
    source = (CHORD / "variants" / "linear-routing.lua").read_text()
    (plot,) = grade(a, source, cache_dir=tmp_path).to_dict()["plots"]
    assert (plot["run"], plot["metric"], plot["unit"]) == ("ring", "lookup_latency", "s")
    mine, ref = plot["submission"], plot["reference"]
    assert len(mine) == len(ref) == 101 and mine == sorted(mine) and ref == sorted(ref)
    assert mine[90] > 3 * ref[90]   # linear routing: far slower than the reference's O(log N)


def test_an_error_raised_in_a_function_served_over_rpc_counts_as_a_runtime_error(tmp_path: Path) -> None:
    folder = tiny_assignment(tmp_path, [{"name": "clean", "check": "no_runtime_errors"}])
    source = ("rpc = require 'splay.rpc'\n"
              "function crash() local t = nil; return t.x end\n"
              "rpc.server(job.me.port)\n"
              "events.thread(function()\n"
              "  events.sleep(1)\n"
              "  if job.position == 1 then rpc.call(job.nodes[2], {'crash'}) end\n"
              "  events.sleep(1); events.exit()\n"
              "end)\n")
    (check,) = grade(load_assignment(folder), source, cache_dir=tmp_path).to_dict()["checks"]
    assert not check["passed"]
    assert "node 2" in check["message"] and "call to 'crash' raised: app.lua:2:" in check["message"]


def test_a_simulated_submission_is_bounded_by_a_multiple_of_the_references_wall_time(tmp_path: Path, monkeypatch) -> None:
    # A submission doing far more work than the reference (here: computing between short sleeps,
    # never long enough for the spin check) stops at SIM_BOUND_FACTOR times the reference's wall
    # time, and the report says so. The floor is lowered from 120 s so that the test takes seconds.
    from grading.grader import runner
    monkeypatch.setattr(runner, "SIM_BOUND_FLOOR_S", 1.5)
    monkeypatch.setattr(runner, "SIM_BOUND_FACTOR", 2)
    folder = tiny_assignment(tmp_path, [{"name": "clean", "check": "no_runtime_errors"}])
    a = load_assignment(folder)
    slow = ("function measure() return 0.1 end\n"
            "require('splay.events').thread(function()\n"
            "  while true do local x = 0; for j = 1, 2e6 do x = x + j end; events.sleep(0.01) end\n"
            "end)\n")
    started = time.monotonic()
    report = grade(a, slow, cache_dir=tmp_path).to_dict()
    took = time.monotonic() - started
    (run,) = report["runs"]
    ref_wall = json.loads(next(tmp_path.glob("*.json")).read_text())["wall_s"]   # the cached reference's
    bound = max(1.5, 2 * ref_wall)
    assert run["failure"].startswith(f"the run took more than {bound:g} s of wall time ("), run["failure"]
    assert bound <= run["wall_s"] < bound + 5 and took < 30
    assert report["score"] == 0
    # the reference itself, and a submission as quick as it, stay inside the bound
    assert grade(a, a.reference, cache_dir=tmp_path).to_dict()["runs"][0]["failure"] is None


@pytest.mark.parametrize("text", [
    '{"kind": "trace", "rows": [[1.5, "call", 3, "ping", 18, 26, "ok", "", 0, 0.0, 1]]}',
    '{"t": 1e-7, "n": -0.0, "big": 9007199254740993, "s": "caf\\u00e9 \\ud83d\\ude00", "x": null}',
    '[NaN, Infinity, -Infinity]', '1e400', '"\\ud800"', '{"a": 1, "a": 2}',
    '"\\u0000"', '"\ufffd \x7f"', '{"a": "\\/"}',
    # a line of 2 MB
    '{"kind": "trace", "rows": [' + ",".join(['[1.5, "call", 3, "ping", 18, 26, "ok", "", 0, 0.0, 1]'] * 40000) + "]}",
])
def test_records_are_read_as_json_reads_them(text: str) -> None:
    from grading.grader.runner import parse_json
    got, want = parse_json(text), json.loads(text)
    # (NaN is not equal to itself: compared as text)
    assert repr(got) == repr(want) and type(got) is type(want)


@pytest.mark.parametrize("text", ['{"a": ', "nope", "[1, 2,]", "", '"a\x00b"', '"a\x01b"', "\ufeff{}", "{} x"])
def test_a_broken_record_line_raises_what_json_raises(text: str) -> None:
    from grading.grader.runner import parse_json
    with pytest.raises(ValueError):
        parse_json(text)
    with pytest.raises(ValueError):
        json.loads(text)
