"""The reference experiment of assignments/chord-latency (issue 4): the paper's Chord on 100
nodes of the emulated transit-stub network answers every lookup correctly with a mean route
shorter than ½·log2 N + 0.5 hops. Real local nodes (./splaylab run), ~2 minutes."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "assignments" / "chord-latency" / "check.py"


def test_chord_on_100_transit_stub_nodes_meets_the_expectations() -> None:
    proc = subprocess.run([sys.executable, str(CHECK)], capture_output=True, text=True, timeout=280)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1000/1000 lookups correct" in proc.stdout, proc.stdout
