"""`./splaylab churn`: check, convert and draw churn scenarios offline (docs/churn.md).

    ./splaylab churn check FILE [--seed S]
        errors (FILE:LINE:COLUMN: message, exit 1), or the scheduled form with the population
        at each step, the warnings (skipped joins/leaves) and a summary
    ./splaylab churn trace FILE --out TRACE [--speedup K] [--amplitude A] [--from T] [--to T] [--seed S]
        SPLAY's per-node on/off trace of a script, a SPLAY trace or an FTA event_trace
    ./splaylab churn plot FILE --out fig.png [--bin SECONDS] [--seed S] [--run OUT.jsonl]
        the SPLAY paper's figure 4: population over time above joins and leaves per bin;
        with --run, the actual population of a `./splaylab run --churn ... --out` beside the planned

FILE is told apart by its content: a script, a SPLAY trace (numbers only) or an FTA
event_trace (rows of 8+ columns whose 6th is 0/1). Exit status: 0 ok, 1 a bad scenario,
2 bad usage or an unreadable file.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "sandbox") not in sys.path:
    sys.path.append(str(ROOT / "sandbox"))

import churn  # noqa: E402  (sandbox/churn/)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as e:
        print(f"splaylab churn: cannot read {path}: {e.strerror}", file=sys.stderr)
        raise SystemExit(2) from None


def _load(path: Path, seed: int) -> churn.Schedule | None:
    text = _read(path)
    errors = churn.script_errors(text) if churn.load_kind(text) == "script" else []
    if errors:
        for e in errors:
            print(f"{path}:{e.line}:{e.column}: {e.message}", file=sys.stderr)
        return None
    try:
        return churn.load(text, seed=seed)
    except churn.ChurnError as e:
        print(f"{path}:{e.line}:{e.column}: {e.message}", file=sys.stderr)
        return None


def check(args: argparse.Namespace) -> int:
    plan = _load(args.file, args.seed)
    if plan is None:
        return 1
    sys.stdout.write(plan.scheduled_text())
    for line, message in plan.warnings:
        print(f"{args.file}:{line}: warning: {message}", file=sys.stderr)
    steps = churn.population_steps(plan.events)
    peak = max((p for _, p in steps), default=0)
    joins = sum(1 for e in plan.events if e.kind == "join")
    leaves = sum(1 for e in plan.events if e.kind == "leave")
    print(f"# {joins} joins, {leaves} leaves of {plan.nodes} distinct nodes; peak population {peak}; "
          f"ends at {plan.duration:g} s" + (" (stop)" if plan.end is not None else ""))
    return 0


def trace(args: argparse.Namespace) -> int:
    plan = _load(args.file, args.seed)
    if plan is None:
        return 1
    try:
        nodes = churn.derive_trace(plan.trace(), start=args.start, end=args.end, speedup=args.speedup,
                                   amplitude=args.amplitude, seed=args.seed)
    except ValueError as e:
        print(f"splaylab churn: {e}", file=sys.stderr)
        return 2
    args.out.write_text(churn.trace_text(nodes))
    print(f"{args.out}: {len(nodes)} nodes")
    return 0


def actual_steps(path: Path) -> list[tuple[float, int]]:
    """The population a run really had: its `churn` records (actual times), stepped."""
    import json

    events = []
    for line in _read(path).splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if rec.get("kind") == "churn" and rec.get("event") in ("join", "leave"):
            events.append((float(rec["t"]), 1 if rec["event"] == "join" else -1))
    out: list[tuple[float, int]] = []
    pop = 0
    for t, d in sorted(events):
        pop += d
        out.append((t, pop))
    return out


def _stepped(steps: list[tuple[float, int]], end: float) -> tuple[list[float], list[int]]:
    xs, ys = [0.0], [0]
    for t, p in steps:
        xs += [t, t]
        ys += [ys[-1], p]
    xs.append(max(end, xs[-1]))
    ys.append(ys[-1])
    return xs, ys


def plot(args: argparse.Namespace) -> int:
    plan = _load(args.file, args.seed)
    if plan is None:
        return 1
    actual = actual_steps(args.run) if args.run else None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = churn.population_steps(plan.events)
    end = plan.duration
    xs, ys = _stepped(steps, end)
    minutes = end >= 600
    scale = 60.0 if minutes else 1.0
    unit = "min" if minutes else "s"
    width = args.bin if args.bin else (60.0 if minutes else max(1.0, round(end / 60) or 1.0))
    bins = churn.per_bin(plan.events, width)

    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(8, 5), gridspec_kw={"height_ratios": [2, 1]})
    top.plot([x / scale for x in xs], ys, color="#1f5fbf", label="planned")
    if actual is not None:
        axs, ays = _stepped(actual, end)
        top.plot([x / scale for x in axs], ays, color="#e67e22", linestyle="--", label=f"actual ({args.run.name})")
        top.legend(loc="upper right", fontsize="small")
    top.set_ylabel("nodes up")
    top.set_title(f"{args.file.name}: population over time")
    top.grid(alpha=0.3)
    lefts = [b[0] / scale for b in bins]
    bottom.bar(lefts, [b[1] for b in bins], width=width / scale, align="edge", color="#2e8b57", label="joins")
    bottom.bar(lefts, [-b[2] for b in bins], width=width / scale, align="edge", color="#c0392b", label="leaves")
    bottom.axhline(0, color="black", linewidth=0.5)
    bottom.set_ylabel(f"per {width:g} s")
    bottom.set_xlabel(f"time ({unit})")
    bottom.legend(loc="upper right", fontsize="small")
    bottom.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"{args.out}: {len(steps)} population steps, peak {max((p for _, p in steps), default=0)}"
          + (f"; actual: {len(actual)} steps, peak {max((p for _, p in actual), default=0)}" if actual is not None
             else ""))
    return 0


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="splaylab churn", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    for name, helptext in (("check", "errors, or the scheduled form and the population at each step"),
                           ("trace", "write SPLAY's trace format"), ("plot", "draw population and joins/leaves")):
        s = sub.add_parser(name, help=helptext)
        s.add_argument("file", type=Path, help="a churn script, a SPLAY trace or an FTA event_trace")
        s.add_argument("--seed", type=int, default=1, help="random choices (default 1)")
        if name in ("trace", "plot"):
            s.add_argument("--out", type=Path, required=True)
        if name == "trace":
            s.add_argument("--speedup", type=float, help="time runs K times faster (x2: a minute in 30 s)")
            s.add_argument("--amplitude", type=float, help="scale the population by A, keeping its statistics")
            s.add_argument("--from", dest="start", type=float, help="keep the trace from T s (shifted to 0)")
            s.add_argument("--to", dest="end", type=float, help="keep the trace until T s")
        if name == "plot":
            s.add_argument("--bin", type=float, help="seconds per join/leave bin (default: 1 min, or ~60 bins)")
            s.add_argument("--run", type=Path, help="a `./splaylab run --churn ... --out` JSONL: its actual population too")
    args = p.parse_args(argv)
    return {"check": check, "trace": trace, "plot": plot}[args.command](args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
