"""The output limits (daemon/splayd/output_limits.py, docs/architecture.md "Output limits") in
the local runner, live and simulated: a flooding node is capped at the daemon's lines per second
with its "log rate limit: N lines dropped" record, a run's output stops at its byte budget with
one "log budget: ..." record, the same program gives the same records live and simulated, and
what is written stays within the budget."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

SANDBOX = Path(__file__).resolve().parent.parent
RUN_LOCAL = SANDBOX / "run_local.py"

# sandbox/tests/apps/flood.lua: 10,000 lines a second per node, without end
FLOOD = (SANDBOX / "tests" / "apps" / "flood.lua").read_text()
# Two bursts of 1,500 lines, 1.5 s apart: each window keeps 1,000 and drops 500.
BURSTS = """require "splay.base"
events.run(function()
  for burst = 1, 2 do
    for i = 1, 1500 do print("burst " .. burst .. " line " .. i) end
    events.sleep(1.5)
  end
end)
"""
RATE_RECORD = re.compile(r"log rate limit: \d+ lines? dropped")


def run(app_text: str, tmp_path: Path, *args: str, name: str = "app") -> tuple[subprocess.CompletedProcess[str], Path]:
    app = tmp_path / f"{name}.lua"
    app.write_text(app_text)
    out = tmp_path / f"{name}-{'sim' if '--sim' in args else 'live'}.jsonl"
    proc = subprocess.run([sys.executable, str(RUN_LOCAL), str(app), "--out", str(out), "--quiet", *args],
                          capture_output=True, text=True, timeout=60)
    return proc, out


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.read_text().splitlines()]


def limit_records(recs: list[dict[str, Any]], limit: str) -> list[dict[str, Any]]:
    return [r for r in recs if r.get("limit") == limit]


def test_a_flooding_node_is_capped_per_second_live_and_simulated(tmp_path: Path) -> None:
    for mode in ([], ["--sim"]):
        proc, out = run(FLOOD, tmp_path, "--nodes", "2", "--time", "2.5", *mode)
        assert proc.returncode == 0, proc.stderr
        recs = records(out)
        for k in (1, 2):
            prints = [r for r in recs if r["node"] == k and r.get("level") == "print"]
            rate = [r for r in limit_records(recs, "rate") if r["node"] == k]
            # 2.5 s: three windows opened, 1,000 lines each at most
            assert 2000 < len(prints) <= 3000, (mode, len(prints))
            assert len(rate) == 3 and all(RATE_RECORD.fullmatch(r["text"]) and r["level"] == "warning" for r in rate)
            assert all(r["dropped"] == int(r["text"].split()[3]) > 1000 for r in rate)
            assert [r["kind"] for r in recs if r["node"] == k][-1] == "exit"   # the rate's last record comes first
        # without limits: ~25,000 lines of ~100 bytes per node
        assert out.stat().st_size < 2 * 3000 * 200


def test_the_simulator_counts_windows_in_virtual_time(tmp_path: Path) -> None:
    proc, out = run(FLOOD, tmp_path, "--nodes", "1", "--time", "3", "--sim")
    assert proc.returncode == 0, proc.stderr
    rate = limit_records(records(out), "rate")
    # 10,000 lines a virtual second, 1,000 kept; the third window also holds the lines at t = 3.0
    assert [(r["t"], r["text"]) for r in rate[:2]] == [(1.0, "log rate limit: 9000 lines dropped"),
                                                       (2.0, "log rate limit: 9000 lines dropped")]


def test_measurement_records_pass_a_flood_untouched(tmp_path: Path) -> None:
    app = FLOOD.replace("events.run(function()\n", """local rpc = require "splay.rpc"
function ping() return "pong" end
rpc.server(job.me.port)
events.run(function()
  if job.position == 1 then
    events.thread(function() for _ = 1, 10 do events.sleep(0.2); rpc.call(job.nodes[2], {"ping"}) end end)
  end
""", 1)
    proc, out = run(app, tmp_path, "--nodes", "2", "--time", "3", "--sim")
    assert proc.returncode == 0, proc.stderr
    recs = records(out)
    assert len(limit_records(recs, "rate")) == 6
    calls = [row for r in recs if r["kind"] == "trace" and r["node"] == 1 for row in r["rows"] if row[1] == "call"]
    assert len(calls) == 10


def test_the_same_program_gives_the_same_records_live_and_simulated(tmp_path: Path) -> None:
    seen = {}
    for mode in ("live", "sim"):
        proc, out = run(BURSTS, tmp_path, "--nodes", "2", "--time", "4", *(["--sim"] if mode == "sim" else []))
        assert proc.returncode == 0, proc.stderr
        recs = [r for r in records(out) if r["kind"] == "log"]
        seen[mode] = [(r["node"], r["level"], r["text"]) for r in recs]
        rate = limit_records(recs, "rate")
        assert [round(r["t"], 1) for r in rate if r["node"] == 1] == [1.0, 2.5] or mode == "live", rate
    # each node's records in order; how two live nodes' lines interleave is the scheduler's
    by_node = {mode: sorted(rows, key=lambda row: row[0]) for mode, rows in seen.items()}
    assert by_node["live"] == by_node["sim"]
    kept = Counter(text.split(" line ")[0] for _, level, text in seen["sim"] if level == "print")
    assert kept == {"burst 1": 2000, "burst 2": 2000}
    assert [t for k, _, t in seen["sim"] if k == 1 and t.startswith("log")] == ["log rate limit: 500 lines dropped"] * 2


def test_the_runs_byte_budget_stops_its_output_with_one_record(tmp_path: Path) -> None:
    budget = 50 * 1024
    texts = {}
    for mode in ([], ["--sim"]):
        proc, out = run(FLOOD, tmp_path, "--nodes", "3", "--time", "2", "--log-max-size", "50KB", *mode)
        assert proc.returncode == 0, proc.stderr
        recs = records(out)
        spent = limit_records(recs, "budget")
        assert [r["text"] for r in spent] == ["log budget: job output limit of 50 KB reached, further output dropped"]
        texts[bool(mode)] = spent[0]["text"]
        app = [r for r in recs if r["kind"] == "log" and "limit" not in r]
        assert sum(len(r["level"]) + len(r["text"].encode()) + 2 for r in app) <= budget
        assert [r["kind"] for r in recs if r["t"] > spent[0]["t"] + 0.5 and r["kind"] == "log"] == []
        assert {r["text"] for r in recs if r["kind"] == "exit"} == {"stopped: duration of 2.0 s reached"}
        # what was written: the budget plus each record's JSON (about 80 bytes a line) and the rest
        assert out.stat().st_size < budget * 2 + 20_000
    assert texts[False] == texts[True]


def test_a_descriptor_asks_lower_limits_never_higher(tmp_path: Path) -> None:
    asks = "--[[\nBEGIN SPLAY RESOURCES RESERVATION\nlog_lines_per_second {}\nEND SPLAY RESOURCES RESERVATION\n]]\n"
    proc, out = run(asks.format(100) + FLOOD, tmp_path, "--nodes", "1", "--time", "1.5", "--sim", name="low")
    assert proc.returncode == 0, proc.stderr
    assert len([r for r in records(out) if r.get("level") == "print"]) == 200
    proc, _ = run(asks.format(5000) + FLOOD, tmp_path, "--nodes", "1", "--time", "1", name="high")
    assert proc.returncode == 2
    assert "INVALID_LOG: asked 5000 log lines per second per node, this run (--log-lines-per-second, " \
           "--log-max-size) allows 1000" in proc.stderr


def test_long_lines_are_cut_alike_live_and_simulated(tmp_path: Path) -> None:
    app = 'print(("y"):rep(10000))\nprint("after")\n'
    texts = {}
    for mode in ([], ["--sim"]):
        proc, out = run(app, tmp_path, "--nodes", "1", "--time", "1", *mode, name="long")
        assert proc.returncode == 0, proc.stderr
        texts[bool(mode)] = [r["text"] for r in records(out) if r.get("level") == "print"]
    assert texts[False] == texts[True] == ["y" * (4096 - len("print\t")) + " [line truncated at 4096 bytes]", "after"]
