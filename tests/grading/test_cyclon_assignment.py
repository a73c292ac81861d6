"""assignments/cyclon graded end to end (simulated runs, the real grader): the reference scores
100, the starter scores low and says why, each buggy variant fails the checks it should and
passes the others. ~30 s on an idle machine (14 simulations of 200 nodes)."""
from __future__ import annotations

from pathlib import Path

from grading_helpers import failed, graded

FOLDER = Path(__file__).resolve().parents[2] / "assignments" / "cyclon"
ERRORS, ERRORS_CHURN, HEALTH, DISTINCT, SPREAD, DEAD, HEALTH_CHURN, SHUFFLE = (
    "No node raises an error", "No node raises an error under churn", "Views are full, clean and connected",
    "Every view holds 10 other peers, none twice", "In-degrees stay close to the mean",
    "Dead peers leave the views within 80 s", "Views are healthy again after the failure",
    "Nodes shuffle: messages per node close to the reference's")
LEARNED = "View entries arrive by shuffles, not from job.nodes"


def test_the_spec_weighs_100_points(assignment) -> None:
    assert sum(c.weight for c in assignment.checks) == 100
    assert [r.name for r in assignment.runs] == ["static", "failure"]


def test_the_reference_scores_100(assignment, cache) -> None:
    score, checks, _ = graded(assignment, "reference/app.lua", cache)
    assert score == 100, checks
    assert "200 of 200 views hold 10 entries" in checks[HEALTH]["message"]
    assert "140 of 140 views hold 10 entries" in checks[HEALTH_CHURN]["message"]
    assert "60 nodes failed at 50 s" in checks[DEAD]["message"]


def test_the_starter_scores_low_and_says_what_is_wrong(assignment, cache) -> None:
    score, checks, _ = graded(assignment, "starter/app.lua", cache)
    assert score < 30
    assert failed(checks) == {HEALTH, DISTINCT, SPREAD, DEAD, HEALTH_CHURN, SHUFFLE, LEARNED}
    # views stay the bootstrap's, which no message brought: they count as empty
    assert "0 of 200 views hold 10 entries" in checks[HEALTH]["message"]
    assert "too small to judge their health" in checks[HEALTH]["message"]
    assert "views too small to judge" in checks[SPREAD]["message"]
    assert "too few entries to judge" in checks[DEAD]["message"]
    assert "0 of " in checks[LEARNED]["message"] and "learned of from a message" in checks[LEARNED]["message"]


def test_keeping_peers_that_did_not_answer_keeps_the_dead(assignment, cache) -> None:
    score, checks, _ = graded(assignment, "variants/keeps-dead-peers.lua", cache)
    assert failed(checks) == {DEAD, HEALTH_CHURN}, checks
    assert "dead peers are never dropped" in checks[DEAD]["message"]
    assert "entries point to dead nodes (allowed 5%)" in checks[HEALTH_CHURN]["message"]
    assert 60 < score < 85


def test_a_merge_that_keeps_duplicates_fails_the_clean_views(assignment, cache) -> None:
    _, checks, _ = graded(assignment, "variants/merge-keeps-duplicates.lua", cache)
    assert failed(checks) == {HEALTH, DISTINCT, HEALTH_CHURN}, checks
    assert checks[DISTINCT]["points"] == 0
    assert "itself" in checks[DISTINCT]["message"] or "duplicate" in checks[DISTINCT]["message"]
    assert "of 200 without self or duplicates" in checks[HEALTH]["message"]
    assert "200 of 200 without self" not in checks[HEALTH]["message"]


def test_a_random_neighbour_leaves_dead_entries_longer(assignment, cache) -> None:
    _, checks, _ = graded(assignment, "variants/random-neighbour.lua", cache)
    # Cyclon's oldest-first choice bounds how long an entry lives: without it dead entries
    # linger and (the paper's "basic shuffling") in-degrees spread wider
    assert DEAD in failed(checks)
    assert failed(checks) <= {DEAD, HEALTH_CHURN, SPREAD}, checks
    assert "still" in checks[DEAD]["message"] and "never dropped" not in checks[DEAD]["message"]


def test_random_views_that_never_shuffle_are_seen_in_the_trace(assignment, cache) -> None:
    score, checks, _ = graded(assignment, "variants/random-views-no-shuffle.lua", cache)
    # full, clean and connected as the nodes hold them, but no message brought any entry: the
    # trace says so, and the view checks count the entries that did arrive (none)
    assert failed(checks) == {HEALTH, DISTINCT, SPREAD, DEAD, HEALTH_CHURN, SHUFFLE, LEARNED}, checks
    assert "0 of 24000 sampled view entries" in checks[LEARNED]["message"]
    assert "messages per node, mean: 0 measured from the trace" in checks[SHUFFLE]["message"]
    assert score < 20
