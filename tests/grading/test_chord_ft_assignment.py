"""assignments/chord-ft graded end to end (simulated runs of the massive-failure scenario, the real
grader): the reference scores 100, the starter (plain Chord) scores low and says its lookups never
recover, each buggy variant fails the checks it should and passes the others. Seven simulated runs of
140 virtual s (the reference's twice: as a submission and as the reference), ~30 s on an idle
2-core machine, 80 s under a load of 7."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from grading.grader import grade, load_assignment

FOLDER = Path(__file__).resolve().parents[2] / "assignments" / "chord-ft"
ERRORS, BEFORE, SUCC, LISTS, PRED, RECOVERY, AFTER, HOPS, PEERS, LATENCY = (
    "No node raises an error", "Lookups find the key's owner before the failure",
    "Every successor is right after the failure", "Every successor list is right after the failure",
    "Every predecessor is right after the failure", "Lookups recover within 30 s of the failure",
    "Lookups find the key's owner from 30 s after the failure", "Lookups take O(log N) hops",
    "Each node talks to a few peers, not to everyone", "Lookup latency close to the reference's")
ALL = {ERRORS, BEFORE, SUCC, LISTS, PRED, RECOVERY, AFTER, HOPS, PEERS, LATENCY}


SUBMISSIONS = ["reference/app.lua", "starter/app.lua", "variants/stale-successor-list.lua",
               "variants/no-fallback.lua", "variants/lookups-no-skip.lua", "variants/no-check-predecessor.lua"]


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, dict]:
    """Every submission's report. The reference first (its run fills the cache the others read),
    then the others two at a time: each run is one simulator process."""
    assignment, cache = load_assignment(FOLDER), tmp_path_factory.mktemp("grading-cache")

    def report(rel: str) -> dict:
        return grade(assignment, (FOLDER / rel).read_text(), cache_dir=cache).to_dict()

    out = {SUBMISSIONS[0]: report(SUBMISSIONS[0])}
    with ThreadPoolExecutor(max_workers=2) as pool:
        out.update(zip(SUBMISSIONS[1:], pool.map(report, SUBMISSIONS[1:])))
    return out


def checks_of(reports: dict[str, dict], rel: str) -> tuple[float, dict[str, dict]]:
    report = reports[rel]
    assert not report["compile_error"], report["compile_error"]
    assert {c["name"] for c in report["checks"]} == ALL
    return report["score"], {c["name"]: c for c in report["checks"]}


def failed(checks: dict[str, dict]) -> set[str]:
    return {name for name, c in checks.items() if not c["passed"]}


def test_the_reference_scores_100(reports) -> None:
    score, checks = checks_of(reports, "reference/app.lua")
    assert score == 100, checks
    assert "32 of 32 live nodes" in checks[SUCC]["message"]
    assert "32 nodes failed at 80.0 s" in checks[RECOVERY]["message"]
    assert "between 50 s and the failure at 80.0 s" in checks[BEFORE]["message"]


def test_the_starter_works_until_the_failure_and_never_recovers(reports) -> None:
    score, checks = checks_of(reports, "starter/app.lua")
    assert score < 50
    assert {SUCC, LISTS, PRED, RECOVERY, AFTER} <= failed(checks), checks
    assert not failed(checks) & {ERRORS, BEFORE}, checks
    assert "lookups never recovered" in checks[RECOVERY]["message"]
    assert "has successor" in checks[SUCC]["message"] and "the right one is" in checks[SUCC]["message"]
    assert "keeps no successor" in checks[LISTS]["message"]


def test_a_stale_successor_list_is_seen_in_the_lists(reports) -> None:
    # the finger fallback and the walk back through predecessors still repair the ring: only
    # the lists themselves show the bug
    score, checks = checks_of(reports, "variants/stale-successor-list.lua")
    assert failed(checks) == {LISTS}, checks
    assert "the right ones are" in checks[LISTS]["message"]
    assert 80 <= score < 100


def test_without_a_fallback_a_node_that_lost_its_whole_list_stays_lost(reports) -> None:
    score, checks = checks_of(reports, "variants/no-fallback.lua")
    assert {SUCC, RECOVERY, AFTER} <= failed(checks), checks
    assert not failed(checks) & {ERRORS, BEFORE, HOPS, LATENCY}, checks
    assert "lookups never recovered" in checks[RECOVERY]["message"]
    assert "answered a wrong node" in checks[AFTER]["message"]
    assert score < 80


def test_lookups_that_do_not_skip_dead_nodes_recover_late(reports) -> None:
    score, checks = checks_of(reports, "variants/lookups-no-skip.lua")
    # the ring is repaired by stabilize; the lookups wait for fix_fingers to replace dead fingers
    assert failed(checks) == {RECOVERY, AFTER}, checks
    assert "got no answer" in checks[AFTER]["message"]
    assert "(allowed 30 s)" in checks[RECOVERY]["message"]
    assert score < 100


def test_without_check_predecessor_dead_predecessors_stay(reports) -> None:
    score, checks = checks_of(reports, "variants/no-check-predecessor.lua")
    # a dead predecessor kept also stops the walk back of a node that lost its list
    assert PRED in failed(checks), checks
    assert not failed(checks) & {ERRORS, BEFORE, HOPS, LATENCY}, checks
    assert "predecessor" in checks[PRED]["message"]
    assert score < 80
