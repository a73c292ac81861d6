"""A report keeps the log lines of the submission's visible runs (the grader keeps no records):
capped, errors first, listed by time; a run only hidden checks read keeps none."""
from datetime import timedelta

from django.utils import timezone

from courses.tests.factories import client_for
from grading.grader import assignment_from_texts, grade
from grading.grader.run_logs import CUT_MARK, MAX_TEXT, run_logs
from grading.models import Assignment, Submission
from grading.tests.factories import REPORT, assignment_make, graded_make


def _log(t: float, node: int, level: str, text: str) -> dict:
    return {"kind": "log", "t": t, "node": node, "level": level, "text": text}


def test_lines_are_kept_by_time_with_a_bad_ending_and_without_other_records() -> None:
    records = [_log(0.2, 2, "info", "second"), {"kind": "metric", "t": 0.1, "node": 1, "name": "m", "value": 1},
               _log(0.1, 1, "print", "first"), {"kind": "exit", "t": 5, "node": 3, "code": 0, "text": "ended normally"},
               {"kind": "exit", "t": 1.5, "node": 2, "code": 1, "text": "ended with exit code 1"},
               {"kind": "probe", "t": 0.3, "node": 1, "name": "lookup", "value": 1}]
    assert run_logs(records) == {"total": 3, "errors": 1, "lines": [
        [0.1, 1, "print", "first"], [0.2, 2, "info", "second"], [1.5, 2, "error", "node ended: ended with exit code 1"]]}


def test_a_chatty_run_keeps_every_error_first_then_its_earliest_lines() -> None:
    records = [_log(i / 10, 1 + i % 4, "info", f"line {i}") for i in range(5000)]
    records += [_log(400 + i, 2, "error", f"late error {i}") for i in range(3)]
    kept = run_logs(records, max_lines=100)
    assert (kept["total"], kept["errors"], len(kept["lines"])) == (5003, 3, 100)
    texts = [line[3] for line in kept["lines"]]
    assert texts[:97] == [f"line {i}" for i in range(97)]
    assert texts[97:] == ["late error 0", "late error 1", "late error 2"]
    only_errors = run_logs(records, max_lines=2)
    assert [line[3] for line in only_errors["lines"]] == ["late error 0", "late error 1"]


def test_a_long_line_is_cut_with_a_mark() -> None:
    (line,) = run_logs([_log(1, 1, "print", "x" * 5000)])["lines"]
    assert line[3] == "x" * MAX_TEXT + CUT_MARK


APP = ("print('hello from node ' .. job.position)\n"
       "if job.position == 2 then error('node two gives up') end\n")


def test_the_grader_keeps_the_visible_runs_logs_only(tmp_path) -> None:
    spec = {"title": "Logs", "runs": [{"name": "shown", "mode": "sim", "nodes": 3, "time": 5, "seed": 1},
                                      {"name": "secret", "mode": "sim", "nodes": 2, "time": 5, "seed": 2}],
            "checks": [{"name": "clean", "check": "no_runtime_errors", "run": "shown"},
                       {"name": "clean too", "check": "no_runtime_errors", "run": "secret", "hidden": True}]}
    assignment = assignment_from_texts(slug="logs", spec=spec, starter="", reference="", harness="")
    runs = {r["name"]: r for r in grade(assignment, APP, cache_dir=tmp_path).to_dict()["runs"]}
    assert "logs" not in runs["secret"]
    logs = runs["shown"]["logs"]
    texts = [line[3] for line in logs["lines"]]
    assert {f"hello from node {k}" for k in (1, 2, 3)} <= set(texts)
    assert any("node two gives up" in text and line[1] == 2 and line[2] == "error"
               for line, text in zip(logs["lines"], texts))
    assert logs["errors"] >= 1 and logs["total"] == len(logs["lines"])


def _with_a_hidden_run(submission: Submission) -> None:
    """REPORT plus a run only the hidden check reads, each run with logs (as an older grader or
    a bug might have stored them) and a plot."""
    logs = {"total": 1, "errors": 0, "lines": [[0.5, 1, "print", "a line"]]}
    checks = [*REPORT["checks"][:2], {**REPORT["checks"][2], "run": "massive-failure"}]
    runs = [{**REPORT["runs"][0], "logs": logs},
            {**REPORT["runs"][0], "name": "massive-failure", "churn": "scenarios/secret.churn", "logs": logs}]
    plots = [{"run": name, "metric": "lookup_latency", "unit": "s", "samples": 1, "submission": [0.1] * 101,
              "reference": None} for name in ("ring", "massive-failure")]
    Submission.objects.filter(id=submission.id).update(report={**REPORT, "checks": checks, "runs": runs,
                                                               "plots": plots})


def test_students_never_get_a_hidden_runs_logs_nor_before_the_deadline_the_run(classroom) -> None:
    chord = assignment_make(classroom.course, deadline=timezone.now() + timedelta(days=1))
    submission = graded_make(chord, classroom.student, 50.0)
    _with_a_hidden_run(submission)
    url = f"/api/submissions/{submission.id}/"
    res = client_for(classroom.student).get(url)
    assert [r["name"] for r in res.json()["report"]["runs"]] == ["ring"]
    assert res.json()["report"]["runs"][0]["logs"]["lines"] == [[0.5, 1, "print", "a line"]]
    assert [p["run"] for p in res.json()["report"]["plots"]] == ["ring"]
    assert "massive-failure" not in res.content.decode() and "secret.churn" not in res.content.decode()
    Assignment.objects.filter(id=chord.id).update(deadline=timezone.now() - timedelta(seconds=1))
    runs = client_for(classroom.student).get(url).json()["report"]["runs"]
    assert [(r["name"], "logs" in r) for r in runs] == [("ring", True), ("massive-failure", False)]
    staff = client_for(classroom.ta).get(url).json()["report"]["runs"]
    assert [(r["name"], "logs" in r) for r in staff] == [("ring", True), ("massive-failure", True)]
