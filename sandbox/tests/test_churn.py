"""sandbox/churn/: SPLAY's churn language, traces, and the schedule (issue 5).

The example script of ../shared/reference/churn-language.md, a corpus of valid and invalid
scripts, and property tests (hypothesis): generated valid scripts round-trip through the
scheduled form and never drive the population below zero or above the cap."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

SANDBOX = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(SANDBOX))
import churn  # noqa: E402

EXAMPLE = """at 0s set replacement ratio to 50%
at 1 hour set maximum population to 1000
at 0 minutes, 30 seconds increase 100
at 3 minutes and 2 seconds decrease (20+(6-1))%
from 10 m+1s to 1 hour increase 100% churn 50%
at 1 hours, 20 minute set rep.ratio 10%
from 2 hours, 1 second to 3 hours decrease 50% churn 400%
at 4 hours stop
"""


def population(plan: churn.Schedule, t: float) -> int:
    return sum(1 if e.kind == "join" else -1 for e in plan.events if e.kind in ("join", "leave") and e.t <= t)


def test_the_reference_example_yields_the_documented_populations() -> None:
    sts = churn.parse_script(EXAMPLE)
    assert [(s.line, s.t1, s.t2, s.action) for s in sts] == [
        (1, 0, None, "set_ratio"), (2, 3600, None, "set_max"), (3, 30, None, "join"), (4, 182, None, "leave"),
        (5, 601, 3600, "join"), (6, 4800, None, "set_ratio"), (7, 7201, 10800, "leave"), (8, 14400, None, "stop")]
    assert sts[3].quantity == churn.Quantity(25, True)  # (20+(6-1))%
    plan = churn.schedule(sts, seed=1)
    # 100 join at 30 s; 25 % of them leave at 3 min 2 s; +100 % over 10 min 1 s .. 1 h (with
    # churn, which keeps the population); -50 % over 2 h 1 s .. 3 h; stop at 4 h.
    assert [population(plan, t) for t in (29, 30, 181, 182, 601, 3600, 7200, 10800, 14400)] == \
        [0, 100, 100, 75, 75, 150, 150, 75, 75]
    assert plan.end == 14400 and plan.warnings == []
    # churn 50 % of the mean population (112.5) in the first period, 400 % of 112.5 in the second
    churned = [e for e in plan.events if e.line == 5 and e.kind == "leave"]
    assert len(churned) == 56
    assert len([e for e in plan.events if e.line == 7 and e.kind == "join"]) == 450


def test_time_expressions_and_synonyms() -> None:
    cases = {
        "at 3h,34m and 10s const": 3 * 3600 + 34 * 60 + 10,
        "at 10 m+1s keep": 601,
        "at (10*60-4) seconds const": 596,
        "at 4*d-(2-1) hours const": 4 * 86400 - 3600,  # a unit alone is one of it
        "at 2 Minutes const": 120, "at 1 Day const": 86400, "at 1.5s const": 1.5,
    }
    for text, seconds in cases.items():
        [s] = churn.parse_script(text)
        assert s.t1 == seconds, text
    words = "at 1s add 2\nat 2s inc 3\nat 3s increase 1\nat 4s remove 1\nat 5s dec 1\nat 6s decrease 1\nat 7s end"
    assert [s.action for s in churn.parse_script(words)] == ["join"] * 3 + ["leave"] * 3 + ["stop"]
    sets = "at 0s set max pop 5\nat 0s set maximum population to 6\nat 0s set repratio 20%\nat 0s set replacement ratio to 30%"
    assert [(s.action, s.quantity.value) for s in churn.parse_script(sets)] == [
        ("set_max", 5), ("set_max", 6), ("set_ratio", 20), ("set_ratio", 30)]


def test_comments_in_every_form_are_ignored() -> None:
    text = "# a scenario\nat 1s join 10 // ten nodes\n/* a block\n   over lines */ at 2s leave 1 /* inline */\n"
    assert [(s.line, s.action) for s in churn.parse_script(text)] == [(2, "join"), (4, "leave")]


def test_churn_per_time_slice() -> None:
    [s] = churn.parse_script("from 0s to 100s const churn 10% per 10s")
    assert (s.churn, s.churn_per) == (churn.Quantity(10, True), 10)
    plan = churn.schedule(churn.parse_script("at 0s join 50\nfrom 0s to 100s const churn 10% per 10s"), seed=3)
    # 10 % of 50 per 10 s over 100 s: 50 leaves and 50 joins, population unchanged at the end
    assert sum(1 for e in plan.events if e.line == 2 and e.kind == "leave") == 50
    assert population(plan, 100) == 50
    for form in ("churn 10% / 10s", "churn 10% each 10 seconds"):
        assert churn.parse_script(f"from 0s to 100s keep {form}")[0].churn_per == 10


def test_overlapping_churn_adds_up() -> None:
    one = churn.schedule(churn.parse_script("at 0s join 100\nfrom 10s to 60s const churn 20%"))
    two = churn.schedule(churn.parse_script("at 0s join 100\nfrom 10s to 60s const churn 20%\n"
                                            "from 30s to 60s const churn 20%"))
    assert sum(e.kind == "leave" for e in two.events) == sum(e.kind == "leave" for e in one.events) + 20


def test_replacement_ratio_revives_nodes_that_left() -> None:
    fresh = churn.schedule(churn.parse_script("at 0s join 10\nat 1s leave 5\nat 2s join 5"))
    assert fresh.nodes == 15  # the default: every join is a fresh node
    revived = churn.schedule(churn.parse_script("at 0s set replacement ratio to 0%\nat 0s join 10\n"
                                                "at 1s leave 5\nat 2s join 5"))
    assert revived.nodes == 10
    trace = revived.trace()
    assert sum(len(iv) for iv in trace) == 15  # five nodes have two sessions


def test_the_cap_and_an_empty_population_skip_with_a_warning() -> None:
    plan = churn.schedule(churn.parse_script("at 0s set max pop 5\nat 1s join 8\nat 2s leave 7"))
    assert population(plan, 1) == 5 and population(plan, 2) == 0
    assert plan.warnings == [(2, "3 joins skipped: maximum population 5 reached"),
                             (3, "2 leaves skipped: nobody was up")]


def test_graceful_leaves_and_statements_after_stop() -> None:
    plan = churn.schedule(churn.parse_script("at 0s join 4\nat 5s leave 2 gracefully\nat 6s stop\nat 7s join 1"))
    assert [e.graceful for e in plan.events if e.kind == "leave"] == [True, True]
    assert plan.end == 6 and plan.warnings == [(4, "after 'stop' at 6 s: ignored")]
    assert "at 5s leave 2 gracefully" in plan.scheduled_text()


def test_network_statements() -> None:
    text = """at 0s join 10
from 10s to 20s partition 50%
at 30s partition 20% 30%
at 40s heal
from 50s to 60s loss 5%
at 70s latency x2
from 80s to 90s latency 50%
at 95s loss default
"""
    plan = churn.schedule(churn.parse_script(text))
    net = [(e.t, e.kind, e.value) for e in plan.events if e.kind not in ("join", "leave")]
    assert net == [(10, "partition", (0.5, 0.5)), (20, "heal", None), (30, "partition", (0.2, 0.3, 0.5)),
                   (40, "heal", None), (50, "loss", 0.05), (60, "loss", None), (70, "latency", 2.0),
                   (80, "latency", 0.5), (90, "latency", 2.0), (95, "loss", None)]
    again = churn.schedule(churn.parse_script(plan.scheduled_text()))
    assert [(e.t, e.kind, e.value) for e in again.events if e.kind not in ("join", "leave")] == net


def test_network_statements_become_partitions_and_phases_of_the_net_block() -> None:
    text = "from 10s to 20s partition 25% 75%\nat 30s partition 50%\nat 40s heal\n" \
           "at 50s loss 5%\nfrom 60s to 70s latency x3\nat 80s loss default"
    overlay = churn.network_overlay(churn.schedule(churn.parse_script(text)), n=8, seed=1)
    [(a, b), (c, d)] = [(p["at"], p["until"]) for p in overlay["partitions"]]
    assert (a, b, c, d) == (10, 20, 30, 40)
    first = overlay["partitions"][0]["groups"]
    assert sorted(first) == [0, 0, 1, 1, 1, 1, 1, 1]  # 25 % of 8 nodes, the rest
    assert overlay["phases"] == [{"at": 50, "latency": 1.0, "loss": 0.05}, {"at": 60, "latency": 3.0, "loss": 0.05},
                                 {"at": 70, "latency": 1.0, "loss": 0.05}, {"at": 80, "latency": 1.0}]


@pytest.mark.parametrize("text,line,column,message", [
    ("join 10", 1, 1, "a statement starts with 'at TIME' or 'from TIME to TIME'"),
    ("at 10 join 5", 1, 7, "the instant: expected a time unit (s, m, h, d) after 10"),
    ("at 10s jion 5", 1, 8, "expected an action: join, leave, const, set, stop, partition, heal, loss or latency, found 'jion'"),
    ("from 1m to 30s leave 2", 1, 12, "the period ends (30 s) before it starts (60 s)"),
    ("from 1m 2m leave 2", 1, 9, "expected 'to' and the end of the period, found '2'"),
    ("at 5s join 10 churn 5%", 1, 15, "additional churn needs a period: 'from TIME to TIME ... churn Q%'"),
    ("from 1s to 5s set max pop 3", 1, 1, "'set max' happens at an instant: write it 'at TIME ...'"),
    ("at 0s set replacement ratio 50", 1, 31, "the replacement ratio is a percentage: expected '%' after 50"),
    ("at 0s set max pop 10%", 1, 19, "the maximum population is a number of nodes, not a percentage"),
    ("at 1s join (3+4", 1, 16, "expected ')'"),
    ("at 1s join 3 now", 1, 14, "unexpected 'now' after the statement"),
    ("at 1s join 3s", 1, 12, "the number of nodes is a number, not a time"),
    ("at 1s + 2 join 3", 1, 7, "cannot add a time and a number: give both a unit"),
    ("at 1s partition 70% 40%", 1, 7, "a partition's groups are shares above 0% adding up to at most 100% (here 110%)"),
    ("at 1s join 3 $", 1, 14, "unexpected character '$'"),
    ("at 1s join 3 gracefully", 1, 14, "only a leave can be graceful"),
    ("at 1s loss 100%", 1, 12, "the loss rate is below 100% (100%)"),
    ("at 1s join 2\n/* open", 2, 0, "a /* comment is never closed with */"),
])
def test_errors_name_line_column_and_what_was_expected(text: str, line: int, column: int, message: str) -> None:
    errors = churn.script_errors(text)
    assert [(e.line, e.column, e.message) for e in errors] == [(line, column, message)]
    with pytest.raises(churn.ChurnError) as info:
        churn.parse_script(text)
    where = f"line {line}, column {column}" if column else f"line {line}"
    assert str(info.value) == f"{where}: {message}"


def test_every_bad_line_is_reported() -> None:
    errors = churn.script_errors("at 1s join 2\nat 2 leave 1\nat 3s join 1\nfrom 5s leave 1\n")
    assert [e.line for e in errors] == [2, 4]


# --- traces

def test_splay_trace_round_trip_and_odd_counts() -> None:
    nodes = churn.parse_trace("0 100 120 200\n5\n\n# a comment\n10.5 20\n")
    assert nodes == [[(0, 100), (120, 200)], [(5, None)], [(10.5, 20)]]
    assert churn.trace_text(nodes) == "0 100 120 200\n5\n10.5 20\n"
    plan = churn.schedule_from_trace(nodes)
    assert population(plan, 15) == 3 and population(plan, 150) == 2 and population(plan, 300) == 1
    assert plan.trace() == nodes


@pytest.mark.parametrize("text,message", [
    ("0 10 5", "line 1, column 6: times must not decrease (5 after 10)"),
    ("0 ten", "line 1, column 3: expected a time in seconds, found 'ten'"),
    ("1\n-4 5", "line 2, column 1: a time is a number of seconds >= 0, found '-4'"),
])
def test_bad_traces_name_the_place(text: str, message: str) -> None:
    with pytest.raises(churn.ChurnError, match=r"^" + message.replace("(", r"\(").replace(")", r"\)") + "$"):
        churn.parse_trace(text)


FTA = """# job_id event_id node_id platform_id ... event_type start stop reason
1 1 n7 p 0 1 1000 1100 0
1 2 n7 p 0 0 1100 1150 0
1 3 n7 p 0 1 1150 1300 0
1 4 n2 p 0 1 1050 1060 0
"""


def test_fta_event_trace_import() -> None:
    assert churn.load_kind(FTA) == "fta"
    nodes = churn.parse_fta(FTA)
    assert nodes == [[(50, 60)], [(0, 100), (150, 300)]]  # n2 then n7; times from the earliest event
    with pytest.raises(churn.ChurnError, match="event_type"):
        churn.parse_fta("1 1 n1 p 0 maybe 1 2 0")


def test_speedup_truncate_and_amplitude() -> None:
    nodes = [[(0, 60), (120, None)], [(30, 90)]]
    assert churn.trace_speedup(nodes, 2) == [[(0, 30), (60, None)], [(15, 45)]]
    assert churn.trace_truncate(nodes, 40, 100) == [[(0, 20)], [(0, 50)]]
    assert churn.trace_truncate(nodes, 100, 200) == [[(20, None)]]
    big = [[(float(i), float(i + 10))] for i in range(1000)]
    doubled = churn.trace_amplitude(big, 2.0)
    assert len(doubled) == 2000 and sorted(doubled) == sorted(big + big)
    half = churn.trace_amplitude(big, 0.5, seed=4)
    assert 430 < len(half) < 570 and all(iv in big for iv in half)
    # the statistics are kept: every session in the scaled trace is one of the original's
    sessions = {d - u for iv in big for u, d in iv}
    assert {d - u for iv in half for u, d in iv} <= sessions
    with pytest.raises(ValueError):
        churn.trace_speedup(nodes, 0)


def test_script_to_trace_and_back_gives_the_same_populations() -> None:
    plan = churn.schedule(churn.parse_script(EXAMPLE), seed=2)
    back = churn.schedule_from_trace(churn.parse_trace(churn.trace_text(plan.trace())))
    for t in (30, 182, 1000, 3600, 9000, 14399):
        assert population(back, t) == population(plan, t)


def test_per_bin_counts_joins_and_leaves() -> None:
    plan = churn.schedule(churn.parse_script("at 5s join 3\nat 65s leave 1\nat 130s join 2"))
    assert churn.per_bin(plan.events, 60) == [(0, 3, 0), (60, 0, 1), (120, 2, 0)]
    assert churn.population_steps(plan.events) == [(5, 3), (65, 2), (130, 4)]


# --- properties

TIME = st.integers(min_value=0, max_value=3600)
QTY = st.one_of(st.integers(0, 60).map(str), st.integers(0, 150).map(lambda v: f"{v}%"))


@st.composite
def scripts(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["join", "leave", "const", "max", "ratio", "partition", "loss"]))
        t1 = draw(TIME)
        period = draw(st.booleans()) and kind in ("join", "leave", "const", "partition", "loss")
        timing = f"from {t1}s to {t1 + draw(st.integers(1, 600))}s" if period else f"at {t1}s"
        if kind in ("join", "leave"):
            action = f"{draw(st.sampled_from(['join', 'add', 'leave', 'dec']))} {draw(QTY)}"
        elif kind == "const":
            action = "const"
        elif kind == "max":
            action = f"set maximum population to {draw(st.integers(0, 80))}"
        elif kind == "ratio":
            action = f"set replacement ratio to {draw(st.integers(0, 100))}%"
        elif kind == "partition":
            action = "partition 50%"
        else:
            action = f"loss {draw(st.integers(0, 50))}%"
        churn_part = f" churn {draw(st.integers(0, 200))}%" if period and kind in ("join", "leave", "const") \
            and draw(st.booleans()) else ""
        lines.append(f"{timing} {action}{churn_part}")
    return "\n".join(lines)


@settings(max_examples=150, deadline=None)
@given(scripts(), st.integers(0, 5))
def test_generated_scripts_round_trip_and_keep_the_population_in_bounds(text: str, seed: int) -> None:
    plan = churn.schedule(churn.parse_script(text), seed=seed)
    pop, cap, up = 0, float("inf"), set()
    for e in plan.events:
        if e.kind == "set_max":
            cap = e.value
        elif e.kind == "join":
            assert e.node not in up
            up.add(e.node)
            pop += 1
        elif e.kind == "leave":
            assert e.node in up
            up.discard(e.node)
            pop -= 1
        assert 0 <= pop and (e.kind != "join" or pop <= cap)
    assert [e.t for e in plan.events] == sorted(e.t for e in plan.events)
    again = churn.schedule(churn.parse_script(plan.scheduled_text()), seed=seed)
    strip = lambda evs: [(e.t, e.kind, e.node, e.graceful, e.value) for e in evs]  # noqa: E731
    assert strip(again.events) == strip(plan.events)
    assert again.warnings == []
