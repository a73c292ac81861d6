"""The example experiment of assignments/dhash-lookups (issue 6): DHash++'s recursive and
iterative lookups on a static Chord ring of the King-calibrated model, simulated. On 200 nodes
(about a second of simulation) every lookup of both styles returns the key's true owner over
the same routes, and recursive lookups are faster than iterative ones."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "assignments" / "dhash-lookups" / "check.py"
STYLE_LINE = re.compile(r"^\s+(recursive|iterative)\s+(\d+) answered, (\d+) failed,\s+(\d+) correct; "
                        r"mean hops ([\d.]+); latency median (\d+) ms", re.M)


def test_both_styles_on_200_simulated_king_nodes() -> None:
    proc = subprocess.run([sys.executable, str(CHECK), "--nodes", "200", "--seed", "3"],
                          capture_output=True, text=True, timeout=110)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    styles = {m[0]: m[1:] for m in STYLE_LINE.findall(proc.stdout)}
    assert set(styles) == {"recursive", "iterative"}, proc.stdout
    for style, (answered, failed, correct, _, _) in styles.items():
        assert (int(answered), int(failed), int(correct)) == (2000, 0, 2000), (style, proc.stdout)
    assert styles["recursive"][3] == styles["iterative"][3], proc.stdout   # same keys, same routes
    assert int(styles["recursive"][4]) < int(styles["iterative"][4]), proc.stdout


def run_lines(owner_of_last: int, recursive_s: float) -> list[str]:
    """One node (id 100, owner of every key) and its 10 lookups of each style, as lookups.lua logs them."""
    lines = ['{"node": 1, "t": 0.0, "kind": "log", "level": "info", "text": "ring id=100 succ=100"}']
    for i in range(10):
        for style, value in (("recursive", recursive_s), ("iterative", 1.0)):
            owner = owner_of_last if i == 9 else 100
            lines.append(f'{{"node": 1, "t": {10 + i}, "kind": "metric", "name": "lookup_latency", "value": {value}, '
                         f'"type": "observe", "fields": {{"key": {i}, "hops": 2, "style": "{style}", '
                         f'"owner": {owner}}}}}')
    return lines


def test_the_check_refuses_a_wrong_owner_and_a_ratio_out_of_range(tmp_path: Path) -> None:
    def check(lines: list[str]) -> subprocess.CompletedProcess[str]:
        run = tmp_path / "run.jsonl"
        run.write_text("\n".join(lines) + "\n")
        return subprocess.run([sys.executable, str(CHECK), "--jsonl", str(run), "--nodes", "1"],
                              capture_output=True, text=True, timeout=60)

    good = check(run_lines(100, 0.6))
    assert good.returncode == 0, good.stdout + good.stderr
    assert "median 0.600" in good.stdout, good.stdout
    wrong_owner = check(run_lines(7, 0.6))
    assert wrong_owner.returncode == 1 and "9 correct" in wrong_owner.stdout, wrong_owner.stdout
    too_slow = check(run_lines(100, 0.9))
    assert too_slow.returncode == 1 and "FAILED" in too_slow.stdout, too_slow.stdout
