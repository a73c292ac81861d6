"""run_sim.sim_records (the grader runs simulations in its own process) gives the records that
run_local.py --sim --out writes, read back: the same dicts, every kind (logs, the harness's
probes, trace rows, churn, exits, output-limit records), in the same order."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

SANDBOX = Path(__file__).resolve().parent.parent
ROOT = SANDBOX.parent
sys.path.insert(0, str(SANDBOX))

import run_local  # noqa: E402
import run_sim  # noqa: E402

CHORD_FT = ROOT / "assignments" / "chord-ft"


def jsonl_and_in_process(argv: list[str], out: Path) -> tuple[list[dict], list[dict], subprocess.CompletedProcess[str]]:
    proc = subprocess.run([sys.executable, str(SANDBOX / "run_local.py"), *argv, "--out", str(out), "--quiet"],
                          capture_output=True, text=True, timeout=300)
    written = [json.loads(line) for line in out.read_text().splitlines()]
    args, error = run_local.checked_args([*argv, "--quiet"])
    assert error is None
    code, records, failure, _ = run_sim.sim_records(args)
    assert code == proc.returncode, proc.stderr
    return written, records, proc


def test_records_in_process_are_the_jsonl_read_back_under_churn_with_a_harness(tmp_path: Path) -> None:
    scenario = tmp_path / "failure.churn"
    scenario.write_text("from 1s to 8s join 12\nat 30s leave 50%\nat 45s stop\n")
    argv = [str(CHORD_FT / "reference" / "app.lua"), "--sim", "--seed", "5", "--net", "king",
            "--harness", str(CHORD_FT / "harness.lua"), "--churn", str(scenario)]
    written, records, _ = jsonl_and_in_process(argv, tmp_path / "out.jsonl")
    assert records == written
    kinds = {r["kind"] for r in records}
    assert {"trace", "probe", "churn", "exit"} <= kinds, kinds
    assert all(r["sim"] is True for r in records)


def test_output_limit_records_and_a_failure_read_the_same(tmp_path: Path) -> None:
    argv = [str(SANDBOX / "tests" / "apps" / "flood.lua"), "--sim", "--nodes", "2", "--time", "3",
            "--log-lines-per-second", "50"]
    written, records, _ = jsonl_and_in_process(argv, tmp_path / "out.jsonl")
    assert records == written
    assert any(r.get("limit") == "rate" for r in records), {r["kind"] for r in records}


def test_a_cancelled_simulation_stops_within_about_a_second(tmp_path: Path) -> None:
    # the grader's wall-time bound: cancel() is asked about once a second
    (tmp_path / "app.lua").write_text("require 'splay.base'\nevents.run(function() "
                                      "while true do events.sleep(1) end end)\n")
    args, error = run_local.checked_args([str(tmp_path / "app.lua"), "--sim", "--nodes", "2", "--time", "1e9",
                                          "--quiet"])
    assert error is None
    started = time.monotonic()
    code, _, failure, _ = run_sim.sim_records(args, cancel=lambda: time.monotonic() - started > 2)
    took = time.monotonic() - started
    assert failure == "simulation stopped on request" and code == 1
    assert 2 <= took < 5
