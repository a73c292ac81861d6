"""Placement models of sandbox/netmodel.py: where each node of a job sits (King's cities, a
transit-stub topology) and the one-way delay of every pair that follows, from the job's seed.

Python standard library only, like netmodel.py (which imports it; the daemon loads both from its
runtime folder: daemon/splayd/jobspec.py). The delays of one (model, size, seed) are the same for
every run, so a process keeps them for small jobs: a grading worker places an assignment's nodes
once for all its submissions.
"""
from __future__ import annotations

import csv
import functools
import math
import random
from pathlib import Path

CITIES = Path(__file__).resolve().parent / "data" / "cities.csv"

# King-calibrated geographic model (docs/network.md, "Calibration"): nodes at cities of
# data/cities.csv drawn with these continent weights, one-way delay = access(a) + access(b) +
# INFLATION * great-circle distance / FIBRE_KM_PER_S, access delays exponential with mean
# ACCESS_MEAN. Fitted so that the RTT distribution has median ~134 ms, mean ~154 ms (King).
KING_CONTINENTS = {"NA": 0.70, "EU": 0.135, "AS": 0.135, "SA": 0.012, "OC": 0.009, "AF": 0.009}
KING_INFLATION = 1.8
KING_ACCESS_MEAN = 0.01068
FIBRE_KM_PER_S = 200_000.0
EARTH_RADIUS_KM = 6371.0


def _cities() -> dict[str, list[tuple[float, float]]]:
    by: dict[str, list[tuple[float, float]]] = {}
    with CITIES.open() as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            by.setdefault(row["continent"], []).append(
                (math.radians(float(row["latitude"])), math.radians(float(row["longitude"]))))
    return by


def great_circle_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    h = math.sin((b[0] - a[0]) / 2) ** 2 + math.cos(a[0]) * math.cos(b[0]) * math.sin((b[1] - a[1]) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def king_placement(n: int, seed: int) -> tuple[list[tuple[float, float]], list[float]]:
    """Cities and access delays (s) of n nodes, from the seed."""
    rng = random.Random(f"king:{seed}")
    by = _cities()
    # continents in their exact proportions (largest remainder), shuffled: the RTT distribution
    # then varies little from one seed to the next
    exact = {c: w * n for c, w in KING_CONTINENTS.items()}
    counts = {c: int(v) for c, v in exact.items()}
    for c in sorted(exact, key=lambda c: counts[c] - exact[c])[:n - sum(counts.values())]:
        counts[c] += 1
    continents = [c for c, k in counts.items() for _ in range(k)]
    rng.shuffle(continents)
    places = [rng.choice(by[c]) for c in continents]
    access = [rng.expovariate(1.0) * KING_ACCESS_MEAN for _ in range(n)]
    return places, access


def transit_stub_placement(n: int, seed: int, params: dict[str, float]) -> list[tuple[int, int]]:
    """(transit domain, stub domain) of n nodes: stubs drawn uniformly from the topology."""
    rng = random.Random(f"transit-stub:{seed}")
    t, s = int(params["transits"]), int(params["stubs"])
    out = []
    for _ in range(n):
        transit = rng.randrange(t)
        out.append((transit, transit * s + rng.randrange(s)))
    return out


def transit_stub_delay(a: tuple[int, int], b: tuple[int, int], p: dict[str, float]) -> float:
    """One-way delay: same stub domain: one intra-domain link; stubs of one transit domain:
    stub -> transit -> stub (two stub-transit links plus the transit's intra-domain link);
    different transit domains: add one transit-transit link."""
    if a[1] == b[1]:
        return p["intra"]
    if a[0] == b[0]:
        return 2 * p["stub_transit"] + p["intra"]
    return 2 * p["stub_transit"] + p["transit_transit"]


def placement_rows(model: str, n: int, seed: int, params: dict[str, float], who: list[int] | range) -> list[tuple[float, ...]]:
    """The rows of `who` (0-based senders) under a placement model: king or transit-stub."""
    if model == "king":
        places, access = king_placement(n, seed)
        return [tuple(0.0 if i == j else round(access[i] + access[j] + KING_INFLATION * great_circle_km(
            places[i], places[j]) / FIBRE_KM_PER_S, 6) for j in range(n)) for i in who]
    where = transit_stub_placement(n, seed, params)
    return [tuple(0.0 if i == j else transit_stub_delay(where[i], where[j], params) for j in range(n)) for i in who]


# Jobs up to this many nodes keep their whole table of delays (~n * n * 8 bytes and Python's per-row
# overhead: 2 MB at 500 nodes) for the process's next run of the same model, size and seed.
CACHED_PLACEMENT_NODES = 500


@functools.lru_cache(maxsize=8)
def placed_delays(model: str, n: int, seed: int, transit_stub: tuple[tuple[str, float], ...]) -> tuple[tuple[float, ...], ...]:
    """Every pair's one-way delay, read-only: the same for every run of (model, n, seed), so a
    process that grades submission after submission of one assignment places its nodes once
    (~20 ms of a 64-node King grading run)."""
    return tuple(placement_rows(model, n, seed, dict(transit_stub), range(n)))


def delay_rows(model: str, n: int, seed: int, params: dict[str, float], who: list[int] | range) -> list[list[float]]:
    """The rows of `who` as fresh lists (the caller may change them): from the kept table for a
    job up to CACHED_PLACEMENT_NODES, else computed (a large job, or a daemon's few instances of it)."""
    if n > CACHED_PLACEMENT_NODES:
        return [list(row) for row in placement_rows(model, n, seed, params, who)]
    table = placed_delays(model, n, seed, tuple(sorted(params.items())))
    return [list(table[i]) for i in who]
