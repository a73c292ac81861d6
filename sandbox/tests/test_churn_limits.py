"""the limits of sandbox/churn/ (limits.py) (issue 20): a scenario's size is checked from each statement's
counts before any event is made, so a 20-byte text cannot cost seconds of CPU; the error names
the line and the limit. The CLI and `run --sim` share this parser (checked end to end below)."""
from __future__ import annotations

import gc
import subprocess
import sys
import time
from pathlib import Path

import pytest

SANDBOX = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(SANDBOX))
import churn  # noqa: E402


def _parser_cpu_s(call) -> float:
    """CPU seconds of `call` alone: this thread's time (not the rest of the pytest process), after a
    full collection, so that a collection of the whole suite's heap does not land inside it (CI
    once counted 0.53 s for a refusal that takes 0.03 s)."""
    gc.collect()
    start = time.thread_time()
    call()
    return time.thread_time() - start


def _refusal(text: str) -> churn.ChurnError:
    def load() -> None:
        with pytest.raises(churn.ChurnError) as err:
            churn.load(text)
        caught.append(err.value)

    caught: list[churn.ChurnError] = []
    # Refused before expanding: far below what making 10^5..10^6 events costs (seconds).
    assert _parser_cpu_s(load) < 0.5
    return caught[0]


def test_a_join_of_more_nodes_than_a_scenario_holds_is_refused_at_once() -> None:
    err = _refusal("at 0s join 999999")
    assert (err.line, err.message) == (1, "join of 999,999 nodes: a scenario holds at most 10,000 nodes")


def test_the_largest_join_is_accepted() -> None:
    assert churn.load(f"at 0s join {churn.MAX_NODES}").nodes == churn.MAX_NODES


def test_relative_and_multiplied_quantities_are_bounded_too() -> None:
    assert _refusal("at 0s join 10\nat 1s join 1000000%").line == 2
    assert "too large" in _refusal("at 0s join 9" + "9" * 400).message


def test_churn_is_counted_before_it_is_drawn() -> None:
    err = _refusal("at 0s join 100\nfrom 0s to 1000d const churn 100 per 0.001s")
    assert err.line == 2
    assert f"a scenario holds at most {churn.MAX_EVENTS:,} events" in err.message


def test_many_statements_add_up_to_the_event_limit() -> None:
    err = _refusal("at 0s join 10000\n" + "".join(f"at {i}s leave 10000\nat {i}s join 10000\n" for i in range(1, 6)))
    assert (err.line, err.message) == (11, "this line adds 10,000 events to 100,000: a scenario holds at most "
                                           "100,000 events (joins, leaves and network changes)")


def test_distinct_nodes_are_bounded_when_joins_add_up() -> None:
    err = _refusal("at 0s join 6000\nat 1s join 6000")
    assert (err.line, err.message) == (2, "the scenario reaches 10,001 distinct nodes: a scenario holds at most "
                                          "10,000 nodes (each join starts a fresh node unless 'set replacement "
                                          "ratio' revives some)")


def test_instants_past_ten_years_are_refused() -> None:
    err = _refusal("at 0s join 1\nat 10000000d leave 1")
    assert (err.line, err.message) == (2, "the instant is past 3,650 days, the longest scenario")


def test_traces_are_held_to_the_same_limits() -> None:
    err = _refusal("0\n" * (churn.MAX_NODES + 1))
    assert err.line == churn.MAX_NODES + 1 and "10,001 nodes" in err.message
    with pytest.raises(ValueError, match="amplitude 100 makes about 20,000 nodes"):
        churn.trace_amplitude([[(0.0, None)]] * 200, 100)


def test_many_relative_statements_stay_cheap() -> None:
    """Relative quantities read the planned population: O(log n) per read, not a scan."""
    text = "at 0s join 5000\n" + "".join(f"at {i}s join 0.01%\n" for i in range(1, 20001))
    plans: list[churn.Schedule] = []
    assert _parser_cpu_s(lambda: plans.append(churn.load(text))) < 2
    assert plans[0].nodes == 5000 + 20000 * 0  # 0.01 % of 5000 is half a node: floored


@pytest.mark.parametrize("extra", [[], ["--sim"]])
def test_run_and_run_sim_refuse_with_the_same_message(tmp_path: Path, extra: list[str]) -> None:
    (tmp_path / "app.lua").write_text("events.run(function() end)\n")
    (tmp_path / "s.churn").write_text("at 0s join 999999")
    proc = subprocess.run([sys.executable, str(SANDBOX / "run_local.py"), str(tmp_path / "app.lua"), *extra,
                           "--churn", str(tmp_path / "s.churn")], capture_output=True, text=True, timeout=30)
    assert proc.returncode != 0
    assert "s.churn:1:0: join of 999,999 nodes: a scenario holds at most 10,000 nodes" in proc.stderr
