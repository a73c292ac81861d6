"""`./splaylab fidelity`: the same experiment live and simulated, side by side (docs/simulation.md).

    ./splaylab fidelity APP.lua --nodes N [--net MODEL] [--time S] [--seed K] [--out fig.png]

Runs APP.lua on N local nodes (sandbox/run_local.py, a LuaJIT process per node), then
simulated (--sim) with the same network model, seed and duration, and prints, for every
metrics.observe series both runs have, the median and p90 of each and the simulation's relative
error, as WANCE's table 1 compares emulated with real delays. Each metric's two CDFs are drawn
on one plot (`./splaylab plot`): --out names the file; with several metrics each gets its own
(fig-lookup_latency.png, ...). --keep DIR keeps the two JSONL files.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from cli import plot

ROOT = Path(__file__).resolve().parents[2]
RUN_LOCAL = ROOT / "sandbox" / "run_local.py"


def observations(path: Path) -> dict[str, list[float]]:
    """metric name → its observed values, from a run's JSONL."""
    out: dict[str, list[float]] = {}
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        if rec.get("kind") == "metric" and rec.get("type", "observe") == "observe":
            out.setdefault(rec["name"], []).append(float(rec["value"]))
    return out


def quantile(values: list[float], q: float) -> float:
    """The nearest-rank quantile (the job page's and `./splaylab plot`'s)."""
    xs = sorted(values)
    return xs[max(0, -(-int(q * 100) * len(xs) // 100) - 1)]


def rows(live: dict[str, list[float]], sim: dict[str, list[float]]) -> list[dict[str, float | str | int]]:
    out: list[dict[str, float | str | int]] = []
    for name in sorted(set(live) & set(sim)):
        row: dict[str, float | str | int] = {"metric": name, "n_live": len(live[name]), "n_sim": len(sim[name])}
        for q, label in ((0.5, "median"), (0.9, "p90")):
            a, b = quantile(live[name], q), quantile(sim[name], q)
            row[f"{label}_live"], row[f"{label}_sim"] = a, b
            row[f"{label}_error"] = (b - a) / a if a else float("nan")
        out.append(row)
    return out


def table_line(r: dict[str, float | str | int]) -> str:
    unit, scale = plot.unit_of(str(r["metric"]), [float(r["p90_live"]), float(r["p90_sim"])])

    def v(key: str) -> str:
        return f"{float(r[key]) * scale:.4g}{' ' + unit if unit else ''}"
    counts = f"{r['n_live']}/{r['n_sim']}"
    return (f"{r['metric']:<24}{counts:>14}{v('median_live'):>13}{v('median_sim'):>11}"
            f"{float(r['median_error']):>+9.1%}{v('p90_live'):>11}{v('p90_sim'):>11}{float(r['p90_error']):>+9.1%}")


def run(app: Path, extra: list[str], out: Path, sim: bool) -> int:
    argv = [sys.executable, str(RUN_LOCAL), str(app), *extra, "--out", str(out), "--quiet"] + (["--sim"] if sim else [])
    print(f"{'simulated' if sim else 'live'}: {' '.join(argv[2:])}", file=sys.stderr)
    return subprocess.run(argv, check=False).returncode


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="splaylab fidelity", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("app", type=Path)
    p.add_argument("--nodes", "-n", type=int, required=True)
    p.add_argument("--net", default="lan", help="the network model (as ./splaylab run --net)")
    p.add_argument("--loss", help="loss probability per packet (as ./splaylab run --loss)")
    p.add_argument("--time", "-t", type=float, default=60)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=Path("fidelity.png"), help="the CDF plot (png, svg, pdf)")
    p.add_argument("--keep", type=Path, help="keep live.jsonl and sim.jsonl in this folder")
    args = p.parse_args(argv)
    if not args.app.is_file():
        print(f"splaylab fidelity: no such file: {args.app}", file=sys.stderr)
        return 2
    extra = ["--nodes", str(args.nodes), "--time", f"{args.time:g}", "--seed", str(args.seed), "--net", args.net]
    if args.loss:
        extra += ["--loss", args.loss]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        live_file, sim_file = folder / "live.jsonl", folder / "sim.jsonl"
        codes = [run(args.app, extra, live_file, sim=False), run(args.app, extra, sim_file, sim=True)]
        if any(c not in (0, 1) for c in codes) or not live_file.exists() or not sim_file.exists():
            print("splaylab fidelity: a run could not start (see above)", file=sys.stderr)
            return 2
        table = rows(observations(live_file), observations(sim_file))
        if not table:
            print("splaylab fidelity: no metrics.observe series in both runs", file=sys.stderr)
            return 1
        print(f"{args.app.name}, {args.nodes} nodes, net {args.net}, {args.time:g} s, seed {args.seed}"
              + ("" if codes == [0, 0] else f"  (exit status live {codes[0]}, simulated {codes[1]})"))
        print(f"{'metric':<24}{'n live/sim':>14}{'median live':>13}{'sim':>11}{'error':>9}"
              f"{'p90 live':>11}{'sim':>11}{'error':>9}")
        for r in table:
            print(table_line(r))
        for r in table:
            name = str(r["metric"])
            target = args.out if len(table) == 1 else args.out.with_name(f"{args.out.stem}-{name}{args.out.suffix}")
            plot.main([f"{live_file}=live", f"{sim_file}=simulated", "--metric", name, "--out", str(target)])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
