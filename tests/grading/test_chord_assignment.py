"""assignments/chord graded end to end (simulated runs, the real grader): the reference scores
100, the starter scores low and says why, each buggy variant fails the checks it should and
passes the others. ~40 s."""
from __future__ import annotations

import re
from pathlib import Path

from grading_helpers import failed, graded

FOLDER = Path(__file__).resolve().parents[2] / "assignments" / "chord"
ERRORS, SUCC, PRED, LOOKUPS, HOPS, PEERS, MESSAGES, LATENCY = (
    "No node raises an error", "Every successor is right", "Every predecessor is right",
    "Lookups find the key's owner", "Lookups take O(log N) hops", "Each node talks to a few peers, not to everyone",
    "Messages per node close to the reference's", "Lookup latency close to the reference's")


def test_the_reference_scores_100(assignment, cache) -> None:
    score, checks, _ = graded(assignment, "reference/app.lua", cache)
    assert score == 100, checks
    assert "64 of 64 live nodes" in checks[SUCC]["message"]
    # hops are measured from the trace; the reference counts its own forwards right, so they agree
    measured = re.search(r"hops measured from the trace: mean ([\d.]+)", checks[HOPS]["message"])
    claimed = re.search(r"the submission claimed a mean of ([\d.]+)", checks[HOPS]["message"])
    assert measured and claimed and measured.group(1) == claimed.group(1)
    assert 2 < float(measured.group(1)) < 4


def test_the_starter_scores_low_and_says_what_is_wrong(assignment, cache) -> None:
    score, checks, _ = graded(assignment, "starter/app.lua", cache)
    assert score < 20
    assert failed(checks) == {SUCC, PRED, LOOKUPS, HOPS, PEERS, MESSAGES, LATENCY}
    # a starter sends nothing: too little traffic to say whom its nodes talk to
    assert "too little traffic to judge" in checks[PEERS]["message"]
    assert "has successor" in checks[SUCC]["message"] and "the right one is" in checks[SUCC]["message"]
    assert "too few to judge" in checks[HOPS]["message"]


def test_linear_routing_is_right_but_slow(assignment, cache) -> None:
    score, checks, _ = graded(assignment, "variants/linear-routing.lua", cache)
    assert failed(checks) == {HOPS, LATENCY}, checks
    assert "bound 0.5 x log2(64) + 1" in checks[HOPS]["message"]
    assert re.search(r"hops measured from the trace: mean [23]\d\.", checks[HOPS]["message"])
    assert 50 < score < 90


def test_an_owner_off_by_one_fails_the_lookups(assignment, cache) -> None:
    _, checks, _ = graded(assignment, "variants/owner-off-by-one.lua", cache)
    # join itself uses find_successor: the ring is wrong too; nothing raises
    assert LOOKUPS in failed(checks) and SUCC in failed(checks)
    assert ERRORS not in failed(checks)
    assert "answered a wrong node" in checks[LOOKUPS]["message"]


def test_a_stabilize_that_never_adopts_leaves_the_ring_unbuilt(assignment, cache) -> None:
    _, checks, _ = graded(assignment, "variants/stabilize-no-adopt.lua", cache)
    assert {SUCC, LOOKUPS} <= failed(checks)
    assert ERRORS not in failed(checks)
