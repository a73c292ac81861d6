"""`./splaylab plot`: the CDF of a metric from run JSONL files, as a real image."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def write_run(path: Path, values: list[float]) -> None:
    lines = [{"node": 1, "t": 0.1, "kind": "log", "level": "info", "text": "hello"}]
    lines += [{"node": 1 + i % 3, "t": i / 10, "kind": "metric", "name": "lookup_latency", "value": v,
               "type": "observe"} for i, v in enumerate(values)]
    path.write_text("".join(json.dumps(rec) + "\n" for rec in lines))


def test_plots_two_runs_on_one_cdf_and_prints_their_percentiles(tmp_path: Path) -> None:
    a, b = tmp_path / "mine.jsonl", tmp_path / "ref.jsonl"
    write_run(a, [0.01 * i for i in range(1, 101)])        # 10 .. 1000 ms
    write_run(b, [0.005 * i for i in range(1, 51)])        # 5 .. 250 ms
    out = tmp_path / "cdf.png"
    proc = subprocess.run([str(ROOT / "splaylab"), "plot", str(a), f"{b}=reference", "--metric", "lookup_latency",
                           "--out", str(out), "--log"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == ["mine: n = 100, p50 500 ms, p90 900 ms",
                                            "reference: n = 50, p50 125 ms, p90 225 ms"]
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000


def test_a_metric_the_file_does_not_have_is_named(tmp_path: Path) -> None:
    a = tmp_path / "run.jsonl"
    write_run(a, [0.1])
    proc = subprocess.run([str(ROOT / "splaylab"), "plot", str(a), "--metric", "hops", "--out",
                           str(tmp_path / "x.png")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert f"{a} has no 'hops' observation" in proc.stderr
