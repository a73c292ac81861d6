"""The trace summed while a simulated grading run goes (grader/trace_tally.py, runner._simulate)
gives the facts RunData reads from the run's records afterwards; a RunData given a tally does
not count the trace again."""
from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest

from grading.grader import load_assignment, runner
from grading.grader.rundata import RunData, TraceTally

ROOT = Path(__file__).resolve().parents[2]


def facts(run: RunData, rows: bool = True) -> dict:
    """What the checks read of a run's trace (and, with rows, how it came: rows read, capped)."""
    f = {"traffic": {k: asdict(v) for k, v in run.traffic.items()},
         "operations": {k: asdict(v) for k, v in run.operations.items()}}
    return {**f, "rows": run.trace_rows, "capped": set(run.trace_capped)} if rows else f


def test_a_simulated_grading_runs_tally_is_the_trace_of_its_records() -> None:
    a = load_assignment(ROOT / "assignments" / "chord")
    (run,) = a.runs
    result = runner.execute(a.reference, run, harness=a.harness, cache_dir=None)
    assert result.failure is None and result.trace_tally is not None
    summed = RunData(run.name, run.nodes, run.time, result.records, tally=result.trace_tally)
    read = RunData(run.name, run.nodes, run.time, result.records)
    assert facts(summed) == facts(read)
    # a grading run's trace: every node's calls, the harness's lookups as operations
    assert sum(t.calls for t in read.traffic.values()) > 10_000 and len(read.traffic) == run.nodes
    assert sum(1 for o in read.operations.values() if o.name) > 100


@pytest.mark.parametrize("slug", ["chord", "cyclon"])   # operations and depths; `learned` rows (learn: true)
def test_a_grading_runs_summed_trace_gives_the_facts_of_its_listed_rows(monkeypatch, slug: str) -> None:
    """Grading runs list one row per node and sum the rest (runner.TRACE_MAX): the checks'
    facts are those of every row listed (sums, peers, operations, the deepest call, the first
    instant a peer was learned), from fewer rows (a chord grade's: ~12 times fewer)."""
    a = load_assignment(ROOT / "assignments" / slug)
    run = a.runs[0]
    runs = {}
    for trace_max in (20_000, runner.TRACE_MAX):
        monkeypatch.setattr(runner, "TRACE_MAX", trace_max)
        result = runner.execute(a.reference, run, harness=a.harness, cache_dir=None)
        assert result.failure is None
        runs[trace_max] = RunData(run.name, run.nodes, run.time, result.records, learned=run.learn,
                                  tally=result.trace_tally)
    listed, summed = runs[20_000], runs[runner.TRACE_MAX]
    assert runner.TRACE_MAX < 100 and summed.trace_rows < listed.trace_rows
    assert listed.trace_capped == set() and summed.trace_capped == set(range(1, run.nodes + 1))
    assert facts(summed, rows=False) == facts(listed, rows=False)
    if run.learn:
        assert any(t.learned for t in listed.traffic.values())
    else:
        assert max(o.depth for o in listed.operations.values()) > 1


def row(t, typ, peer, name="", out=0, inb=0, outcome="ok", op="", depth=0, dur=0.0, count=1) -> list:
    return [t, typ, peer, name, out, inb, outcome, op, depth, dur, count]


RECORDS = [
    {"kind": "trace", "node": 1, "t": 1.0, "rows": [
        row(0.5, "call", 2, "find", 40, 20, op="1:7", depth=1), row(0.6, "op", None, "lookup", op="1:7", dur=0.3),
        row(0.7, "sendto", 3, out=10), ["short"], row(0.8, "call", "x", out="not a number")]},
    {"kind": "log", "node": 2, "t": 1.0, "level": "info", "text": "hello"},
    {"kind": "trace", "node": 2, "t": 1.5, "rows": [
        row(0.5, "serve", 1, "find", 20, 40, op="1:7"), row(0.9, "serve", 1, "boom", outcome="error", count=2),
        row(1.0, "learned", 3), row(1.1, "learned", 3), row(1.2, "capped", None)]},
    {"kind": "trace", "node": 3, "t": 2.0},
]


def test_records_summed_one_at_a_time_give_what_rundata_reads() -> None:
    tally = TraceTally()
    for record in RECORDS:
        tally.add_record(record)
    summed = RunData("r", 3, 5.0, RECORDS, tally=tally)
    read = RunData("r", 3, 5.0, RECORDS)
    assert facts(summed) == facts(read)
    assert read.trace_rows == 8   # the short row and the one without a number are skipped
    assert (read.traffic[1].calls, read.traffic[1].raw_sends, read.traffic[1].peers) == (1, 1, {2, 3})
    assert (read.traffic[2].served, read.traffic[2].errors, read.traffic[2].learned) == (3, 2, {3: 1.0})
    assert read.trace_capped == {2} and read.traffic[2].talked == {1}
    op = read.operation("1:7")
    assert (op.name, op.messages, op.bytes, op.depth, op.nodes, op.node) == ("lookup", 1, 40, 1, {2}, 1)
