"""Run or check the chord-latency experiment and print its figures.

    python assignments/chord-latency/check.py [--nodes N] [--net MODEL] [--seed K]
        runs experiment.json's app with ./splaylab run (the settings given override the file's),
    python assignments/chord-latency/check.py --jsonl FILE.jsonl --nodes N
        reads a run's JSONL instead.
Prints: lookups answered and correct (owner = the key's true successor among the nodes that
reported their ring state), mean hops against ½·log2 N + 0.5, latency p50/p90 (ms).
Exit 0 when the expectations of experiment.json hold, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def figures(records: list[dict], nodes: int) -> dict:
    ring: list[int] = []
    lookups: list[dict] = []
    failed = 0
    for r in records:
        if r.get("kind") == "log" and r.get("text", "").startswith("ring id="):
            ring.append(int(r["text"].split()[1].split("=")[1]))
        elif r.get("kind") == "log" and r.get("text", "").startswith("lookup key=") and r["text"].endswith("failed"):
            failed += 1
        elif r.get("kind") == "metric" and r.get("name") == "lookup_latency":
            lookups.append({"latency": r["value"], **r.get("fields", {})})
    ring.sort()

    def owner(key: int) -> int | None:
        return next((i for i in ring if i >= key), ring[0] if ring else None)

    correct = sum(1 for lk in lookups if lk.get("owner") == owner(int(lk.get("key", -1))))
    lat = sorted(lk["latency"] * 1e3 for lk in lookups)
    hops = [lk.get("hops", 0) for lk in lookups]
    return {
        "nodes": nodes, "ring": len(ring), "answered": len(lookups), "failed": failed, "correct": correct,
        "mean_hops": statistics.mean(hops) if hops else None,
        "hops_bound": 0.5 * math.log2(nodes) + 0.5,
        "p50_ms": lat[len(lat) // 2] if lat else None,
        "p90_ms": lat[min(len(lat) - 1, int(0.9 * len(lat)))] if lat else None,
        "hop_histogram": {h: hops.count(h) for h in sorted(set(hops))},
    }


SPEC = json.loads((HERE / "experiment.json").read_text())


def duration(nodes: int) -> int:
    """The app's timeline: joins 0.25 s apart, 40 s to settle, 10 lookups over 30 s, 15 s
    serving the others' last lookups, and 10 s for the instances' start-up spread."""
    return int(0.25 * nodes + SPEC["time"] - 25)


def main() -> int:
    spec = SPEC
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=spec["nodes"])
    p.add_argument("--net", default=spec["net"])
    p.add_argument("--seed", type=int, default=spec["seed"])
    p.add_argument("--jsonl", type=Path, help="read this run instead of running one")
    args = p.parse_args()
    if args.jsonl:
        records = [json.loads(line) for line in args.jsonl.read_text().splitlines()]
    else:
        with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as out:
            subprocess.run([str(ROOT / "splaylab"), "run", str(HERE / spec["app"]), "--nodes", str(args.nodes),
                            "--time", str(duration(args.nodes)), "--seed", str(args.seed), "--net", args.net, "--quiet",
                            "--out", out.name], check=False)
            records = [json.loads(line) for line in out]
    f = figures(records, args.nodes)
    tries = args.nodes * 10
    print(f"{args.nodes} nodes, net {args.net}: {f['correct']}/{tries} lookups correct ({f['answered']} answered, "
          f"{f['failed']} failed), mean hops {f['mean_hops']:.2f} (bound {f['hops_bound']:.2f}), "
          f"latency p50 {f['p50_ms']:.0f} ms, p90 {f['p90_ms']:.0f} ms; hops {f['hop_histogram']}")
    ok = f["correct"] >= spec["expect"]["success"] * tries and f["mean_hops"] is not None \
        and f["mean_hops"] < f["hops_bound"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
