"""The output limits on the daemon (splayd/output_limits.py, docs/architecture.md "Output
limits"): the per-node rate with its "log rate limit: N lines dropped" record, the per-job
byte budget with its one "log budget: ..." record, asked in `limits` within the owner's
ceilings; measurement records are outside both."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from splayd.config import Config
from splayd.instances import Instance, Limits
from splayd.outbox import Outbox
from splayd.output_limits import (BUDGET, RATE, JobBudget, LimitError, NodeLimiter, OutputLimits, budget_text,
                                  parse_size, within)

from .utils import FakeController


def limiter(rate: int | None, budget: JobBudget) -> tuple[NodeLimiter, list[tuple[str, str, int]]]:
    sent: list[tuple[str, str, int]] = []
    return NodeLimiter(rate, budget, lambda level, text, limit, n: sent.append((limit, text, n))), sent


def test_a_window_keeps_its_first_lines_and_reports_the_rest_once_it_closes() -> None:
    node, sent = limiter(3, JobBudget(None))
    kept = [node.admit("print", 10, 0.1 + i / 100) for i in range(10)]
    assert kept == [True] * 3 + [False] * 7
    node.tick(1.05)           # the window opened at 0.1: still open
    assert sent == []
    node.tick(1.1)
    assert sent == [(RATE, "log rate limit: 7 lines dropped", 7)]
    node.tick(5.0)            # reported once
    assert len(sent) == 1
    assert node.admit("print", 10, 5.0)   # a new window


def test_the_next_line_after_the_window_reports_before_it_passes() -> None:
    node, sent = limiter(1, JobBudget(None))
    assert node.admit("info", 1, 0.0) and not node.admit("info", 1, 0.5)
    assert node.admit("info", 1, 1.0)     # the window [0, 1) is over at 1.0
    assert sent == [(RATE, "log rate limit: 1 line dropped", 1)]


def test_measurement_records_are_neither_counted_nor_dropped() -> None:
    budget = JobBudget(100)
    node, sent = limiter(1, budget)
    assert all(node.admit(level, 1000, 0.0) for level in ("probe", "trace") * 5)
    assert budget.used == 0 and node.admit("print", 10, 0.0) and not node.admit("print", 10, 0.0)


def test_the_budget_is_the_jobs_one_record_then_silence() -> None:
    budget = JobBudget(100)
    a, sent_a = limiter(None, budget)
    b, sent_b = limiter(None, budget)
    assert a.admit("print", 60, 0.0)
    assert not b.admit("print", 60, 0.1)   # would pass 100: dropped, and the budget is spent
    assert sent_b == [(BUDGET, "log budget: job output limit of 100 bytes reached, further output dropped", 0)]
    assert not a.admit("print", 1, 0.2) and not b.admit("print", 1, 9.0)
    assert sent_a == [] and len(sent_b) == 1 and budget.used == 60 and budget.dropped == 3


def test_a_daemons_share_of_a_jobs_budget_is_enforced_and_the_record_names_the_jobs_budget() -> None:
    """A job over two daemons: each holds a share (the controller's split), the record says
    the job's limit, as on one daemon."""
    budget = JobBudget(50, 100)
    node, sent = limiter(None, budget)
    assert node.admit("print", 40, 0.0) and not node.admit("print", 20, 0.1)
    assert sent == [(BUDGET, budget_text(100), 0)]


def test_runtime_limits_take_the_jobs_budget_beside_the_share(tmp_path: Path) -> None:
    from splayd.jobspec import runtime_limits

    from .utils import make_config
    cfg = make_config(tmp_path, "ws://127.0.0.1:1/ws/daemon/")
    out = runtime_limits(cfg, {"log_max_size": 1024, "log_max_size_of_job": 4096})
    assert (out["log_max_size"], out["log_max_size_of_job"]) == (1024, 4096)
    assert Limits(max_mem=1, max_cpu=1, max_open_files=1, max_file_size=1, duration=None,
                  runtime=out).budget.shown == 4096
    for bad in (-1, "4096", True):
        try:
            runtime_limits(cfg, {"log_max_size_of_job": bad})
        except Exception as e:  # CommandError
            assert "log_max_size_of_job: expected an integer >= 0" in str(e)
        else:
            raise AssertionError(f"{bad!r} accepted")


def test_asked_limits_within_a_ceiling() -> None:
    ceiling = OutputLimits(1000, 50 * 1024 * 1024)
    assert within(ceiling, None, None) == ceiling
    assert within(ceiling, 10, 2048) == OutputLimits(10, 2048)
    for rate, size, message in (
        (2000, None, "INVALID_LOG: asked 2000 log lines per second per node, this run allows 1000"),
        (None, 60 * 1024 * 1024, "INVALID_LOG: asked log_max_size = 60 MB per job, this run allows 50 MB"),
        (0, None, "log_lines_per_second: expected an integer >= 1, got 0"),
    ):
        try:
            within(ceiling, rate, size)
        except LimitError as e:
            assert str(e) == message
        else:
            raise AssertionError(f"{rate}, {size} accepted")
    assert parse_size("50MB") == 50 * 1024 * 1024 and parse_size("512kb") == 512 * 1024 and parse_size("100") == 100
    try:
        parse_size("lots")
    except LimitError as e:
        assert "expected a size such as 50MB" in str(e)
    else:
        raise AssertionError("'lots' accepted")


def test_the_config_defaults_are_the_shared_definition() -> None:
    defaults = OutputLimits()
    assert Config.__dataclass_fields__["log_lines_per_second"].default == defaults.lines_per_second
    assert Config.__dataclass_fields__["log_max_size_mb"].default * 1024 * 1024 == defaults.max_size


def _lines(box: Outbox) -> list[dict[str, Any]]:
    box.flush_logs()
    return [ln for m in iter(box.pop, None) for ln in m.get("lines", [])]


def test_instances_of_a_job_share_its_budget(tmp_path: Path) -> None:
    box = Outbox()
    limits = Limits(max_mem=2**27, max_cpu=5, max_open_files=64, max_file_size=2**20, duration=None,
                    log_lines_per_second=1000, runtime={"log_max_size": 100})
    one, two = Instance(9, 1, 27100, tmp_path, limits, box), Instance(9, 2, 27101, tmp_path, limits, box)
    for i in range(5):   # "print\tline i": 12 bytes and the newline
        one._emit(f"print\tline {i}".encode(), False, "stdout")
        two._emit(f"print\tline {i}".encode(), False, "stdout")
    two._emit(b'trace\t{"rows":[]}', False, "stdout")     # after the budget: still there
    lines = _lines(box)
    prints = [(ln["node"], ln["text"]) for ln in lines if ln["level"] == "print"]
    assert prints == [(1, "line 0"), (2, "line 0"), (1, "line 1"), (2, "line 1"), (1, "line 2"), (2, "line 2"),
                      (1, "line 3")]   # 7 x 13 = 91 bytes; the 8th would pass 100
    warnings = [(ln["node"], ln["text"]) for ln in lines if ln["level"] == "warning"]
    assert warnings == [(2, budget_text(100))]
    assert [ln["level"] for ln in lines][-1] == "trace"


FLOOD = 'require "splay.base"\nlocal i = 0\nwhile true do i = i + 1; print(("x"):rep(90) .. i); ' \
        'if i % 100 == 0 then events.sleep(0.01) end end'


async def test_a_flooding_job_is_capped_by_its_asked_budget_and_keeps_running(
        controller: FakeController, run_daemon) -> None:
    async with run_daemon():
        await controller.deploy(51, FLOOD, nodes=2, duration=2, limits={"log_max_size": 20_000})
        for k in (1, 2):
            end = await controller.wait_final(51, k)
            assert (end["state"], end["reason"]) == ("ENDED", "killed: duration of 2 s reached")
        lines = controller.lines(51, 1) + controller.lines(51, 2)
        app = [ln for ln in lines if ln["level"] == "print"]
        assert sum(len(ln["text"]) + len("print\t\n") for ln in app) <= 20_000
        assert [ln["text"] for ln in lines if ln["text"].startswith("log budget")] == [
            "log budget: job output limit of 19.5 KB reached, further output dropped"]


async def test_limits_above_the_owners_ceilings_are_refused(controller: FakeController, run_daemon) -> None:
    async with run_daemon(log_lines_per_second=200, log_max_size_mb=2):
        for limits, reason in (
            ({"log_max_size": 3 * 1024 * 1024}, "INVALID_LOG: asked log_max_size = 3 MB per job, "
                                                "this daemon allows 2 MB"),
            ({"log_lines_per_second": 500}, "INVALID_LOG: asked 500 log lines per second per node, "
                                            "this daemon allows 200"),
            ({"log_lines_per_second": 0}, "limits.log_lines_per_second: expected an integer >= 1, got 0"),
        ):
            reply = await controller.command("register", job=61, count=1, limits=limits)
            assert (reply["ok"], reply["reason"]) == (False, reason)
