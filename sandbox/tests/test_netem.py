"""The emulated WAN end to end: sandbox/tests/apps/netprobe.lua on real local nodes under
`run_local.py --net ...`; the nodes share this machine's clock, so the receivers measure one-way
delays directly (docs/network.md). Each run takes ~10 s."""
from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

SANDBOX = Path(__file__).resolve().parent.parent
PROBE = Path(__file__).resolve().parent / "apps" / "netprobe.lua"
sys.path.insert(0, str(SANDBOX))
import netmodel  # noqa: E402
import netmodel_placement  # noqa: E402


def probe(tmp_path: Path, nodes: int, seconds: float, *net_args: str) -> list[dict[str, Any]]:
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [sys.executable, str(SANDBOX / "run_local.py"), str(PROBE), "--nodes", str(nodes), "--time", str(seconds),
         "--seed", "3", "--out", str(out), "--quiet", *net_args],
        capture_output=True, text=True, timeout=seconds + 30)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def one_way(records: list[dict[str, Any]], name: str) -> dict[tuple[int, int], list[float]]:
    pairs: dict[tuple[int, int], list[float]] = defaultdict(list)
    for r in records:
        if r["kind"] == "metric" and r["name"] == name:
            pairs[(r["fields"]["src"], r["fields"]["dst"])].append(r["value"])
    return pairs


def test_constant_delay_is_one_way_within_5_percent(tmp_path: Path) -> None:
    records = probe(tmp_path, 4, 6, "--net", "const:40ms")
    for name in ("owd_udp", "owd_tcp"):
        samples = [v for vs in one_way(records, name).values() for v in vs]
        assert len(samples) > 50, name
        median = statistics.median(samples)
        assert abs(median - 0.040) / 0.040 <= 0.05, (name, median)


def test_matrix_delays_per_pair_within_5_percent(tmp_path: Path) -> None:
    rows = [[0, 20, 60, 100], [20, 0, 30, 80], [60, 30, 0, 45], [100, 80, 45, 0]]   # one-way ms
    matrix = tmp_path / "m.csv"
    matrix.write_text("# one-way delays in ms\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n")
    records = probe(tmp_path, 4, 8, "--net", f"matrix:{matrix}")
    for name in ("owd_udp", "owd_tcp"):
        pairs = one_way(records, name)
        assert len(pairs) == 12, (name, sorted(pairs))   # every ordered pair was probed
        for (src, dst), samples in pairs.items():
            want = rows[src - 1][dst - 1] / 1000
            assert abs(statistics.median(samples) - want) / want <= 0.05, (name, src, dst, samples)


def test_udp_loss_rate_within_the_binomial_interval(tmp_path: Path) -> None:
    p = 0.2
    records = probe(tmp_path, 5, 10, "--loss", "20%", "--mtu", "1500")
    sent = sum(r["value"] for r in records if r["kind"] == "metric" and r["name"] == "sent_udp")
    received = sum(r["value"] for r in records if r["kind"] == "metric" and r["name"] == "recv_udp")
    assert sent > 200
    lost = (sent - received) / sent
    half_width = 3 * math.sqrt(p * (1 - p) / sent)   # 3 sigma: fails by chance 0.3 % of runs
    assert abs(lost - p) <= half_width, (sent, received, lost)


def test_a_partition_cuts_groups_apart_until_healed(tmp_path: Path) -> None:
    # nodes 1-2 against 3-4 from 2 s to 4.5 s after launch
    records = probe(tmp_path, 4, 8, "--partition", "2s+2.5s:1-2|3-4")
    group = {1: 0, 2: 0, 3: 1, 4: 1}
    cross = [r for r in records if r["kind"] == "metric" and r["name"] == "owd_udp"
             and group[r["fields"]["src"]] != group[r["fields"]["dst"]]]
    same = [r for r in records if r["kind"] == "metric" and r["name"] == "owd_udp"
            and group[r["fields"]["src"]] == group[r["fields"]["dst"]]]
    assert [r for r in cross if 2.2 <= r["t"] <= 4.3] == []
    assert any(r["t"] < 2.0 for r in cross) and any(r["t"] > 4.7 for r in cross)
    assert any(2.2 <= r["t"] <= 4.3 for r in same)
    # TCP probes sent during the partition are held, then delivered after the heal
    tcp_cross = [r for r in records if r["kind"] == "metric" and r["name"] == "owd_tcp"
                 and group[r["fields"]["src"]] != group[r["fields"]["dst"]]]
    assert [r for r in tcp_cross if 2.2 <= r["t"] <= 4.3] == []
    assert any(r["value"] > 0.5 and r["t"] > 4.5 for r in tcp_cross)


def test_bad_network_arguments_are_refused_with_the_reason(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("0,10\n10,0,5\n")
    cases = [
        (["--net", "const:50"], "bad delay '50': give a number and a unit"),
        (["--net", "warp"], "unknown network model 'warp'"),
        (["--net", f"matrix:{bad}"], "the matrix is not square"),
        (["--loss", "1.5"], "bad loss '1.5'"),
    ]
    for args, message in cases:
        proc = subprocess.run([sys.executable, str(SANDBOX / "run_local.py"), str(PROBE), "--nodes", "2",
                               "--time", "2", *args], capture_output=True, text=True, timeout=30)
        assert proc.returncode == 2
        assert message in proc.stderr, (args, proc.stderr)


def test_king_model_calibration_matches_the_king_figures() -> None:
    spec = netmodel.parse_net("king")
    figures = netmodel.rtt_percentiles(spec, 1000, seed=1)
    assert abs(figures["p50"] - 134) / 134 <= 0.05, figures
    assert abs(figures["mean"] - 154) / 154 <= 0.05, figures


def test_placed_delays_are_the_same_from_the_cache_and_each_caller_gets_its_own_rows() -> None:
    """A grading process places an assignment's nodes once (netmodel_placement.placed_delays): the blocks
    of a second compile equal the first, a block changed by its caller does not reach the next
    compile, and a large job's (or one daemon's positions') rows are computed, not cached."""
    for net in ("king", "transit-stub:3:4"):
        spec = netmodel.parse_net(net)
        first = netmodel.compile_job(spec, 40, seed=7)
        assert first is not None and len(first) == 40 and len(first[0]["delay"]) == 40
        first[0]["delay"][1] = -1.0
        again = netmodel.compile_job(spec, 40, seed=7)
        assert again is not None and again[0]["delay"][1] > 0
        assert again[5]["delay"] == first[5]["delay"]
        assert again[3]["delay"][3] == 0.0 and again[3]["delay"][4] == again[4]["delay"][3]   # symmetric
        computed = netmodel_placement.placement_rows(spec.model, 40, 7, spec.transit_stub, range(40))
        assert [b["delay"] for b in again] == [list(row) for row in computed]
        # one daemon's instances of a job past the cached size: their rows, as the whole job's
        n = netmodel_placement.CACHED_PLACEMENT_NODES + 1
        mine = netmodel.compile_job(spec, n, seed=7, positions=[2, n])
        assert mine is not None and [b["delay"] for b in mine] == netmodel.delay_rows(spec, n, 7, [1, n - 1])
        assert mine[0]["delay"] != netmodel.compile_job(spec, n, seed=8, positions=[2])[0]["delay"]
