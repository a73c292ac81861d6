"""The library's small built-in scenarios (docs/churn.md, "Small scenarios"): 10-20 nodes, under a
minute, so a student's first churn runs fit a course's quotas and end quickly. seed_demo adds
them; each is valid as written (scenarios/tests/test_builtin_scenarios.py parses them)."""
from __future__ import annotations

from accounts.models import User

from .models import Scenario

SMALL_SCENARIOS: dict[str, tuple[str, str]] = {
    "small: steady 10 nodes, 30 s": (
        "Ten nodes from the start to the end: the baseline to compare churn against.",
        "at 0s join 10\n"
        "at 30s stop\n"),
    "small: 20 nodes with 20 % churn, 60 s": (
        "Twenty nodes; from 10 s to 50 s, 20 % of them leave and as many come back at random "
        "instants. Joins revive nodes that left and the population is capped at 20, so the job "
        "needs 20 nodes whatever the seed.",
        "at 0s set replacement ratio to 0%\n"
        "at 0s set maximum population to 20\n"
        "at 0s join 20\n"
        "from 10s to 50s const churn 20%\n"
        "at 60s stop\n"),
    "small: a partition healed after 20 s": (
        "Sixteen nodes split into two halves at 10 s (messages between halves are held or "
        "dropped), healed at 30 s: does the protocol converge again?",
        "at 0s join 16\n"
        "at 10s partition 50%\n"
        "at 30s heal\n"
        "at 45s stop\n"),
}


def small_scenarios_ensure(owner: User) -> list[Scenario]:
    """Add the missing ones (idempotent, by name); one already there is left as it is, since
    an instructor may have edited it."""
    return [Scenario.objects.get_or_create(name=name, defaults={"owner": owner, "text": text,
                                                                 "description": description})[0]
            for name, (description, text) in SMALL_SCENARIOS.items()]
