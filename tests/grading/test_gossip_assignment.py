"""assignments/gossip graded end to end (simulated runs, the real grader): the reference scores
100, the starter scores low and says why, each buggy variant fails the checks it should and
passes the others. ~25 s (idle 2-core VM).

The flood and forward-every-copy variants send ~100 messages per delivery: at the assignment's
100 nodes that is ~175,000 messages and 70 s to 4 min of simulation, so they are graded on a
20-node copy of the static run (its checks only; the cost check's bound does not depend on N)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from grading_helpers import failed, graded

FOLDER = Path(__file__).resolve().parents[2] / "assignments" / "gossip"
ERRORS, COVERAGE, FAILURES, COST, ONCE, LATENCY = (
    "No node raises an error", "Every node gets every message",
    "Every live node gets every message when half the nodes fail", "A delivery costs about FANOUT messages",
    "A node delivers a message once", "Delivery latency close to the reference's")


def test_the_spec_names_its_runs_and_checks(assignment) -> None:
    assert [(r.name, r.nodes, r.net) for r in assignment.runs] == [("static", 100, "king"),
                                                                   ("failures", 100, "transit-stub")]
    assert {c.name for c in assignment.checks} == {ERRORS, COVERAGE, FAILURES, COST, ONCE, LATENCY}
    assert [c.name for c in assignment.checks if c.hidden] == [LATENCY]
    assert sum(c.weight for c in assignment.checks) == 100


def test_the_reference_scores_100(assignment, cache) -> None:
    score, checks, report = graded(assignment, "reference/app.lua", cache)
    assert score == 100, checks
    assert "over 18 messages" in checks[COVERAGE]["message"]
    # half the nodes fail at 45 s: the messages after it count the 50 survivors only
    assert "over 12 messages" in checks[FAILURES]["message"]
    assert "per delivery (the reference's" in checks[COST]["message"]
    assert all(r["failure"] is None for r in report["runs"])


def test_the_starter_scores_low_and_says_what_is_wrong(assignment, cache) -> None:
    score, checks, _ = graded(assignment, "starter/app.lua", cache)
    assert score <= 10
    assert failed(checks) == {COVERAGE, FAILURES, COST, ONCE, LATENCY}
    assert checks[COVERAGE]["message"].startswith("0 of 1782 deliveries")
    assert "reached 0 of 99" in checks[COVERAGE]["message"]
    assert "no node delivered a message" in checks[COST]["message"]
    assert "too few to judge" in checks[LATENCY]["message"]


def test_no_forwarding_reaches_the_first_hop_only(assignment, cache) -> None:
    score, checks, _ = graded(assignment, "variants/no-forward.lua", cache)
    assert failed(checks) == {COVERAGE, FAILURES, COST, ONCE, LATENCY}, checks
    assert "reached 6 of 99" in checks[COVERAGE]["message"]
    # a broadcast that reaches 6 nodes is fast and cheap, not good: neither is judged
    for name in (LATENCY, COST, ONCE):
        assert "too few to judge" in checks[name]["message"], checks[name]
    assert score < 50


def test_delivering_every_copy_fails_the_once_check_only(assignment, cache) -> None:
    score, checks, _ = graded(assignment, "variants/deliver-duplicates.lua", cache)
    assert failed(checks) == {ONCE}, checks
    assert "duplicate deliveries at 100 node(s)" in checks[ONCE]["message"]
    assert score == 90


def test_not_replacing_dead_peers_loses_messages_under_failures_only(assignment, cache) -> None:
    _, checks, _ = graded(assignment, "variants/no-replacement.lua", cache)
    assert failed(checks) == {FAILURES}, checks
    assert "needed 99%" in checks[FAILURES]["message"]


@pytest.fixture(scope="module")
def small(assignment):
    """The static run and its checks on 20 nodes: for the costly variants."""
    static = assignment.run("static")
    return replace(assignment, runs=[replace(static, nodes=20)],
                   checks=[c for c in assignment.checks if c.run == "static"])


def test_flooding_every_node_is_too_costly(small, cache) -> None:
    score, checks, _ = graded(small, "variants/flood.lua", cache)
    assert failed(checks) == {COST}, checks
    assert "20.0 per delivery" in checks[COST]["message"]
    assert "allowed 9: push each new message to FANOUT peers, once" in checks[COST]["message"]
    assert score < 90


def test_forwarding_every_copy_is_too_costly(small, cache) -> None:
    # each node forwards up to the harness's 20 copies of a message: ~95 messages per delivery
    score, checks, _ = graded(small, "variants/forward-every-copy.lua", cache)
    assert failed(checks) == {COST}, checks
    cost = float(checks[COST]["message"].split(" per delivery")[0].rsplit(" ", 1)[1])
    assert cost > 50, checks[COST]["message"]
    assert score < 90
