"""RunData's derived facts (backend/grading/grader/rundata.py) computed once are the facts computed
each time: live_ids(t) from its cache of segments equals its definition (the ids that the nodes
alive at t reported last) at every instant, churn and id changes included, and a Chord check that
several checks ask for is judged once per run."""
from __future__ import annotations

import random

from grading.grader.checks_ring import judge_lookups
from grading.grader.rundata import RunData


def probe(node: int, t: float, name: str, value: object, **fields: object) -> dict:
    return {"kind": "probe", "node": node, "t": t, "name": name, "value": value, "fields": fields}


def churned_run() -> RunData:
    """Six nodes over 100 s: joins and leaves (one rejoin), ids reported every 2.5 s, node 2
    taking another id at 40 s, node 5 reporting a non-number once."""
    records: list[dict] = []
    joins = {1: 0.0, 2: 0.0, 3: 5.0, 4: 10.0, 5: 20.0, 6: 30.0}
    for k, t in joins.items():
        records.append({"kind": "churn", "node": k, "t": t, "event": "join"})
    records += [{"kind": "churn", "node": 3, "t": 50.0, "event": "leave"},
                {"kind": "churn", "node": 3, "t": 70.0, "event": "join"},
                {"kind": "churn", "node": 6, "t": 60.0, "event": "leave"},
                {"kind": "exit", "node": 4, "t": 80.0, "text": "ended with exit code 1"}]
    for k, start in joins.items():
        t = start + 1.0
        while t < 100:
            ident = 1000 * k + (7 if k == 2 and t >= 40 else 0)
            records.append(probe(k, t, "node_state", "oops" if (k == 5 and t == 31.0) else ident))
            t += 2.5
    return RunData("churned", 6, 100.0, records)


def defined_live_ids(run: RunData, t: float) -> list[int]:
    return sorted(i for i in (run.id_of(k, t) for k in run.alive_at(t)) if i is not None)


def test_live_ids_from_its_segments_equals_its_definition_at_every_instant() -> None:
    run = churned_run()
    rng = random.Random(7)
    instants = [x / 4 for x in range(0, 420)] + [rng.uniform(-5, 110) for _ in range(500)]
    instants += [40.0, 41.0, 50.0, 60.0, 70.0, 80.0]   # at a change itself: the change counts
    for t in instants:
        assert list(run.live_ids(t)) == defined_live_ids(run, t), t
    assert 2007 in run.live_ids(41.0) and 2000 not in run.live_ids(41.0)
    assert 3000 not in run.live_ids(55.0) and 3000 in run.live_ids(70.0)


def test_lookups_are_judged_once_per_run_and_arguments() -> None:
    run = churned_run()
    run._probes["lookup_latency"].append(probe(1, 30.0, "lookup_latency", 0.2, key=1500, owner=2000))
    first = judge_lookups(run)
    assert [x.verdict for x in first] == ["right"]
    first.clear()   # a caller's list is its own
    run._probes["lookup_latency"].clear()
    assert [x.verdict for x in judge_lookups(run)] == ["right"]   # from the memo, not judged again
    assert judge_lookups(run, after=40.0) == []                    # other arguments: judged anew
