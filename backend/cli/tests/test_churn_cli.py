"""`./splaylab churn check | trace | plot`: exit status, messages and files, run as users do."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = """at 0s set replacement ratio to 100%
at 30 seconds join 100
from 1m to 2m leave 50% churn 20%
at 3m stop
"""


def churn(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / "splaylab"), "churn", *args], capture_output=True, text=True, timeout=120)


def test_check_prints_the_scheduled_form_with_the_population(tmp_path: Path) -> None:
    f = tmp_path / "s.churn"
    f.write_text(SCRIPT)
    proc = churn("check", str(f))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:2] == ["at 0s set replacement ratio to 100%", "at 30s join 100  # population 100"]
    assert lines[-2] == "at 180s stop"
    assert lines[-1].startswith("# ") and "peak population 100; ends at 180 s (stop)" in lines[-1]
    assert lines[-3].endswith("# population 50")


def test_check_reports_every_error_with_file_line_and_column_and_exits_1(tmp_path: Path) -> None:
    f = tmp_path / "bad.churn"
    f.write_text("at 10s join 5\nat 5 join 3\nfrom 2m to 1m leave 1\n")
    proc = churn("check", str(f))
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"{f}:2:6: the instant: expected a time unit (s, m, h, d) after 5",
        f"{f}:3:12: the period ends (60 s) before it starts (120 s)"]


def test_warnings_do_not_fail_the_check(tmp_path: Path) -> None:
    f = tmp_path / "w.churn"
    f.write_text("at 0s join 2\nat 1s leave 5\n")
    proc = churn("check", str(f))
    assert proc.returncode == 0
    assert proc.stderr.strip() == f"{f}:2: warning: 3 leaves skipped: nobody was up"


def test_trace_writes_splays_format_sped_up(tmp_path: Path) -> None:
    f, out = tmp_path / "s.churn", tmp_path / "s.trace"
    f.write_text("at 10s join 2\nat 70s leave 1\n")
    proc = churn("trace", str(f), "--out", str(out), "--speedup", "2")
    assert proc.returncode == 0, proc.stderr
    assert sorted(out.read_text().splitlines()) == ["5", "5 35"]
    again = churn("check", str(out))  # a trace is read back as a trace
    assert again.returncode == 0 and again.stdout.splitlines()[:2] == ["at 5s join 2  # population 2",
                                                                       "at 35s leave 1  # population 1"]


def test_plot_draws_a_png(tmp_path: Path) -> None:
    f, out = tmp_path / "s.churn", tmp_path / "fig.png"
    f.write_text(SCRIPT)
    proc = churn("plot", str(f), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000


def test_plot_draws_the_actual_population_of_a_run_beside_the_planned(tmp_path: Path) -> None:
    f, run, out = tmp_path / "s.churn", tmp_path / "run.jsonl", tmp_path / "fig.png"
    f.write_text("at 1s join 3\nat 5s leave 1\n")
    run.write_text("".join(json.dumps(r) + "\n" for r in [
        {"node": 1, "t": 1.01, "kind": "churn", "event": "join", "planned": 1},
        {"node": 2, "t": 1.02, "kind": "churn", "event": "join", "planned": 1},
        {"node": 1, "t": 1.5, "kind": "log", "level": "info", "text": "up"},
        {"node": 3, "t": 1.03, "kind": "churn", "event": "join", "planned": 1},
        {"node": 2, "t": 5.01, "kind": "churn", "event": "leave", "planned": 5}]))
    proc = churn("plot", str(f), "--out", str(out), "--run", str(run))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("actual: 4 steps, peak 3")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_missing_file_is_exit_2(tmp_path: Path) -> None:
    proc = churn("check", str(tmp_path / "nope.churn"))
    assert proc.returncode == 2 and "cannot read" in proc.stderr and "nope.churn" in proc.stderr
