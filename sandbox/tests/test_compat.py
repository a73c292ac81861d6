"""SPLAY compatibility: the paper's Chord, a Cyclon like SPLAY's, an epidemic broadcast.

Each test runs sandbox/run_local.py, live (a LuaJIT process per node) and simulated (--sim: every
node in one process on a virtual clock, docs/simulation.md), and reads its JSONL output (schema
in sandbox/README.md): the same program passes the same checks both ways. Each live run takes
well under 60 s on 2 cores; a simulated one about a second.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from bisect import bisect_left
from pathlib import Path
from typing import Any

import pytest

SANDBOX = Path(__file__).resolve().parent.parent
APPS = SANDBOX / "apps"


MODES = pytest.mark.parametrize("mode", ["live", "sim"])


def run_app(app: str, nodes: int, seconds: int, tmp_path: Path, seed: int = 7,
            mode: str = "live") -> tuple[int, list[dict[str, Any]]]:
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [sys.executable, str(SANDBOX / "run_local.py"), str(APPS / app), "--nodes", str(nodes),
         "--time", str(seconds), "--seed", str(seed), "--out", str(out), "--quiet"]
        + (["--sim"] if mode == "sim" else []),
        capture_output=True, text=True, timeout=seconds + 30)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    return proc.returncode, records


def logs(records: list[dict[str, Any]], pattern: str) -> list[tuple[int, re.Match[str]]]:
    rx = re.compile(pattern)
    found = []
    for r in records:
        if r["kind"] == "log":
            m = rx.search(r["text"])
            if m:
                found.append((r["node"], m))
    return found


@MODES
def test_chord_forms_a_correct_ring_on_50_nodes_and_answers_lookups(tmp_path: Path, mode: str) -> None:
    rc, records = run_app("chord.lua", 50, 40, tmp_path, mode=mode)
    assert rc == 0
    errors = [r for r in records if r["kind"] == "log" and r["level"] == "error"]
    assert errors == []
    ring: dict[int, tuple[int, int, str]] = {}
    for node, m in logs(records, r"^ring id=(\d+) succ=(\d+) pred=(\w+)$"):
        ring[node] = (int(m[1]), int(m[2]), m[3])       # the last report wins
    assert len(ring) == 50
    ids = sorted(v[0] for v in ring.values())
    assert len(set(ids)) == 50
    for my_id, succ, pred in ring.values():
        i = ids.index(my_id)
        assert succ == ids[(i + 1) % 50], f"node {my_id}: successor {succ}"
        assert pred == str(ids[i - 1]), f"node {my_id}: predecessor {pred}"
    found = logs(records, r"^lookup key=(\d+) owner=(\d+)$")
    assert len(found) == 250
    for _, m in found:
        key, owner = int(m[1]), int(m[2])
        expected = ids[bisect_left(ids, key) % 50]      # first id >= key, around the ring
        assert owner == expected, f"key {key}: owner {owner}, expected {expected}"
    latencies = [r for r in records if r["kind"] == "metric" and r["name"] == "lookup_latency"]
    assert len(latencies) == 250


@MODES
def test_cyclon_views_converge_to_the_configured_size(tmp_path: Path, mode: str) -> None:
    rc, records = run_app("cyclon.lua", 20, 30, tmp_path, mode=mode)
    assert rc == 0
    views: dict[int, tuple[int, list[int]]] = {}
    for node, m in logs(records, r"^view size=(\d+) c=(\d+) positions=([\d,]*)$"):
        views[node] = (int(m[2]), [int(p) for p in m[3].split(",") if p])
    assert len(views) == 20
    for node, (c, members) in views.items():
        assert len(members) == c, f"node {node}: view {members}"
        assert len(set(members)) == c and node not in members
    exchanges = [r for r in records if r["kind"] == "metric" and r["name"] == "cyclon_exchange"]
    assert len(exchanges) > 20 * 5


@MODES
def test_epidemic_broadcast_reaches_every_node(tmp_path: Path, mode: str) -> None:
    rc, records = run_app("epidemic.lua", 40, 30, tmp_path, mode=mode)
    assert rc == 0
    reached = {node for node, _ in logs(records, r"^received rumor-1 hops=\d+$")}
    assert reached == set(range(1, 41))
