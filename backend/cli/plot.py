"""`./splaylab plot`: the job page's CDF, offline, from `--out` JSONL files (matplotlib).

    ./splaylab plot RUN.jsonl [RUN2.jsonl ...] --metric lookup_latency --out cdf.png [--log]

One curve per file (the legend names each by its file name, or LABEL with FILE=LABEL), the
x axis in ms for time-like metrics (as the web UI), the sample count and p50/p90 of each run
printed and in the legend. The output format follows the extension (png, svg, pdf).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path


def samples(path: Path, metric: str) -> list[float]:
    out = []
    with path.open() as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("kind") == "metric" and rec.get("name") == metric and rec.get("type", "observe") == "observe":
                out.append(float(rec["value"]))
    return out


def unit_of(metric: str, values: list[float]) -> tuple[str, float]:
    """Same rule as the web UI (frontend/src/features/metrics/lib/metric-store.ts)."""
    if re.search(r"_ms$", metric, re.I):
        return "ms", 1.0
    if re.search(r"(latency|rtt|delay|owd|time|_s$)", metric, re.I) and all(v < 100 for v in values):
        return "ms", 1000.0
    return "", 1.0


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="splaylab plot", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", help="JSONL files of ./splaylab run --out (FILE or FILE=LABEL)")
    p.add_argument("--metric", required=True, help="the metrics.observe name, e.g. lookup_latency")
    p.add_argument("--out", required=True, type=Path, help="cdf.png, cdf.svg, ...")
    p.add_argument("--log", action="store_true", help="logarithmic x axis")
    args = p.parse_args(argv)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    unit = ""
    for run in args.runs:
        file, _, label = run.partition("=")
        path = Path(file)
        if not path.is_file():
            print(f"splaylab plot: no such file: {path}", file=sys.stderr)
            return 2
        values = sorted(samples(path, args.metric))
        if not values:
            print(f"splaylab plot: {path} has no '{args.metric}' observation", file=sys.stderr)
            return 2
        unit, scale = unit_of(args.metric, values)
        xs = [v * scale for v in values]
        n = len(xs)
        p50, p90 = xs[(n + 1) // 2 - 1], xs[max(0, -(-9 * n // 10) - 1)]
        name = label or path.stem
        print(f"{name}: n = {n}, p50 {p50:.3g} {unit}, p90 {p90:.3g} {unit}".replace("  ", " "))
        ax.step(xs, [(i + 1) / n for i in range(n)], where="post",
                label=f"{name} (n = {n}, p50 {p50:.3g}{' ' + unit if unit else ''})")
    ax.set_xlabel(f"{args.metric}{f' ({unit})' if unit else ''}")
    ax.set_ylabel("fraction of samples ≤ x")
    ax.set_ylim(0, 1.02)
    if args.log:
        ax.set_xscale("log")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
