"""Run or check the dhash-lookups experiment (recursive against iterative) and print its figures.

    python assignments/dhash-lookups/check.py [--nodes N] [--seed K] [--net MODEL] [--out FILE.jsonl]
        simulates experiment.json's app with ./splaylab run --sim (the settings given override the
        file's; --out keeps the run's JSONL),
    python assignments/dhash-lookups/check.py --jsonl FILE.jsonl --nodes N
        reads a run's JSONL instead.
Prints per style: lookups answered, failed and correct (owner = the key's true successor among the
ids the nodes logged, "ring id=..."), mean hops, latency median and p90 (ms); then the ratios
recursive / iterative of the medians, p90s and means, beside (h + 1) / 2h at the mean hop count h.
Exit 0 when the expectations of experiment.json hold (every lookup of both styles answered with
the true owner, the ratio of medians within the range), 1 otherwise.
"""
from __future__ import annotations

import argparse
import bisect
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SPEC = json.loads((HERE / "experiment.json").read_text())
STYLES = ("recursive", "iterative")


def lookups_per_node() -> int:
    """LOOKUPS of the app's timeline line (one source for the count each style must reach)."""
    m = re.search(r"SETTLE, WINDOW, LOOKUPS, TIMEOUT, DRAIN = \d+, \d+, (\d+),", (HERE / SPEC["app"]).read_text())
    assert m, "the app's timeline line changed: update check.py"
    return int(m.group(1))


def figures(records: list[dict]) -> dict:
    ring: list[int] = []
    lookups: dict[str, list[dict]] = {s: [] for s in STYLES}
    failed = {s: 0 for s in STYLES}
    for r in records:
        text = r.get("text", "")
        if r.get("kind") == "log" and text.startswith("ring id="):
            ring.append(int(text.split()[1].split("=")[1]))
        elif r.get("kind") == "log" and text.endswith("failed") and text.split()[0] in failed:
            failed[text.split()[0]] += 1
        elif r.get("kind") == "metric" and r.get("name") == "lookup_latency":
            fields = r.get("fields", {})
            if fields.get("style") in lookups:
                lookups[fields["style"]].append({"latency": r["value"], **fields})
    ring.sort()

    def owner(key: int) -> int | None:
        if not ring:
            return None
        i = bisect.bisect_left(ring, key)
        return ring[i] if i < len(ring) else ring[0]

    out: dict = {"ring": len(ring)}
    for style, done in lookups.items():
        lat = sorted(lk["latency"] * 1e3 for lk in done)
        hops = [lk.get("hops", 0) for lk in done]
        out[style] = {
            "answered": len(done), "failed": failed[style],
            "correct": sum(1 for lk in done if lk.get("owner") == owner(int(lk.get("key", -1)))),
            "mean_hops": statistics.mean(hops) if hops else float("nan"),
            "p50_ms": lat[len(lat) // 2] if lat else float("nan"),
            "p90_ms": lat[min(len(lat) - 1, int(0.9 * len(lat)))] if lat else float("nan"),
            "mean_ms": statistics.mean(lat) if lat else float("nan"),
        }
    rec, it = out["recursive"], out["iterative"]
    for q in ("p50", "p90", "mean"):
        out[f"{q}_ratio"] = rec[f"{q}_ms"] / it[f"{q}_ms"] if it[f"{q}_ms"] else float("nan")
    h = it["mean_hops"]
    out["expected_ratio"] = (h + 1) / (2 * h) if h else float("nan")
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=SPEC["nodes"])
    p.add_argument("--seed", type=int, default=SPEC["seed"])
    p.add_argument("--net", default=SPEC["net"])
    p.add_argument("--out", type=Path, help="keep the run's JSONL in this file")
    p.add_argument("--jsonl", type=Path, help="read this run instead of running one")
    args = p.parse_args()
    if args.jsonl:
        records = [json.loads(line) for line in args.jsonl.read_text().splitlines()]
    else:
        with tempfile.TemporaryDirectory() as tmp:
            out = args.out or Path(tmp) / "run.jsonl"
            cmd = [str(ROOT / "splaylab"), "run", str(HERE / SPEC["app"]), "--sim", "--nodes", str(args.nodes),
                   "--net", args.net, "--seed", str(args.seed), "--time", str(SPEC["time"]), "--quiet",
                   "--out", str(out)]
            t0 = time.monotonic()
            proc = subprocess.run(cmd, check=False)
            shown = cmd[1:] if args.out else cmd[1:-2]       # not the temporary file's name
            print(f"simulated in {time.monotonic() - t0:.0f} s of wall time (exit {proc.returncode}): ./splaylab "
                  + " ".join(shown).replace(str(ROOT) + "/", ""))
            records = [json.loads(line) for line in out.read_text().splitlines()]
    f = figures(records)
    tries = args.nodes * lookups_per_node()
    print(f"{args.nodes} nodes, net {args.net}, seed {args.seed}: {f['ring']} ring ids logged, "
          f"{tries} lookups per style")
    for style in STYLES:
        s = f[style]
        print(f"  {style:9}  {s['answered']:6} answered, {s['failed']} failed, {s['correct']:6} correct; "
              f"mean hops {s['mean_hops']:.2f}; latency median {s['p50_ms']:.0f} ms, p90 {s['p90_ms']:.0f} ms, "
              f"mean {s['mean_ms']:.0f} ms")
    print(f"  recursive / iterative: median {f['p50_ratio']:.3f}, p90 {f['p90_ratio']:.3f}, mean {f['mean_ratio']:.3f} "
          f"((h + 1) / 2h at the mean hops: {f['expected_ratio']:.3f})")
    expect = SPEC["expect"]
    low, high = expect["median_ratio"]
    ok = all(f[s]["correct"] >= expect["correct"] * tries for s in STYLES) and low <= f["p50_ratio"] <= high
    if not ok:
        print(f"FAILED: expected every lookup correct and a ratio of medians in [{low}, {high}]")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
