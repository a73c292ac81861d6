"""`./splaylab run --sim`: every node in one LuaJIT process on a virtual clock
(sandbox/simulate.py, docs/simulation.md), printed and recorded as a live run is
(run_records.Output: the same console lines stamped with virtual seconds, the same JSONL)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable

SANDBOX = Path(__file__).resolve().parent
if str(SANDBOX) not in sys.path:
    sys.path.insert(0, str(SANDBOX))
from run_records import LEVELS, Output  # noqa: E402


def _simulate(args: argparse.Namespace, output: Output, on_progress: Callable[[Any], None] | None = None,
              cancel: Callable[[], bool] | None = None, workdir: Path | None = None) -> tuple[int, Any, str | None]:
    """The simulation of checked args, its records into output -> (exit code, simulate's result
    or None, what failed or None); workdir: sim.lua's directory, kept (simulate.simulate's)."""
    import simulate  # sandbox/simulate.py
    app = Path(args.app)
    if not app.is_file():
        return 2, None, f"no such file: {app}"
    churn, until, stop_reason = simulate.run_plan(getattr(args, "churn_plan", None), args.time)
    seed = args.seed if args.seed is not None else 1

    def on_record(k: int, t: float, level: str, text: str) -> None:
        output.virtual = t
        if level == "exit":
            code, _, reason = text.partition("\t")
            output.exit(k, int(code), reason)
        elif level == "churn":
            parts = text.split("\t")
            output.churn(k, parts[0], float(parts[1]), len(parts) > 2)
        elif level == "limit":   # sim.lua's output limits: KIND<TAB>N<TAB>TEXT
            limit, dropped, words = text.split("\t", 2)
            output.limit(k, "warning", words, limit, int(dropped))
        elif level == "fatal":
            output.record(k, "error", text)
        else:
            output.record(k, level if level in LEVELS else "error", text)

    job = simulate.SimJob(app=app, nodes=args.nodes, time=args.time, seed=seed,
                          net_blocks=getattr(args, "net_blocks", None), churn=churn, until=until,
                          stop_reason=stop_reason, max_mem=args.sim_max_mem, spin_limit=args.spin_limit,
                          list_type=getattr(args, "list_type", "head"), list_size=getattr(args, "list_size", 0),
                          harness=Path(args.harness) if args.harness else None, output=args.output_limits,
                          transport=getattr(args, "sim_transport", None) or "fast",
                          trace={"max_events": args.trace_max, "learn": args.trace_learn} if not args.no_trace else False)
    try:
        result = simulate.simulate(job, on_record, on_progress, workdir=workdir, keep=args.keep, cancel=cancel)
    except RuntimeError as e:
        return 2, None, str(e)
    return (0 if result.code == 0 else 1), result, result.failure


def run_sim(args: argparse.Namespace) -> int:
    """--sim: every node in one LuaJIT process on a virtual clock (sandbox/simulate.py); the same
    console lines (stamped with virtual seconds) and JSONL records (t: virtual seconds)."""
    import simulate  # sandbox/simulate.py
    if not Path(args.app).is_file():   # (before --out is created)
        print(f"run_local: no such file: {args.app}", file=sys.stderr)
        return 2
    until = simulate.run_plan(getattr(args, "churn_plan", None), args.time)[1]
    out_file = open(args.out, "w", encoding="utf-8") if args.out else None
    output = Output(out_file, 0.0, args.quiet)
    tty = sys.stderr.isatty()
    seed = args.seed if args.seed is not None else 1

    def on_progress(p: Any) -> None:
        if not args.quiet:
            line = (f"sim: virtual {p.virtual_t:,.1f} s of {until:g} s, {p.events:,} events, "
                    f"{p.events_per_s:,.0f} events/s, {p.nodes_started:,} nodes started")
            sys.stderr.write(("\r" + line + "\x1b[K") if tty else line + "\n")
            sys.stderr.flush()

    try:
        code, result, failure = _simulate(args, output, on_progress)
    finally:
        if out_file:
            out_file.close()
    if result is None:
        print(f"run_local: {failure}", file=sys.stderr)
        return code
    if tty and not args.quiet:
        sys.stderr.write("\n")
    if not args.quiet:
        p = result.final
        if p is not None:
            print(f"sim: {p.virtual_t:g} virtual s, {p.events:,} events in {result.wall_s:.1f} s "
                  f"({p.events_per_s:,.0f} events/s), seed {seed}"
                  + ("" if result.reproducible else " (NOT reproducible here: bubblewrap or setarch missing)"),
                  file=sys.stderr)
    if failure:
        print(f"run_local: {failure}", file=sys.stderr)
    return code


def sim_records(args: argparse.Namespace, cancel: Callable[[], bool] | None = None,
                each: Callable[[dict[str, Any]], None] | None = None
                ) -> tuple[int, list[dict[str, Any]], str | None, list[str]]:
    """The grader's way (grading/grader/runner.py): the simulation of checked args in this
    process, its records as the JSONL of --out reads back (the same dicts, without writing and
    parsing them) -> (exit code, records, what failed or None, sim.lua's last stderr lines).
    cancel(), asked about once a second, stops it (simulate.simulate); each(record) is told
    every record as it comes, in order, while the simulation runs on."""
    records: list[dict[str, Any]] = []

    def keep(record: dict[str, Any]) -> None:
        records.append(record)
        if each is not None:
            each(record)

    code, result, failure = _simulate(args, Output(None, 0.0, True, sink=keep), cancel=cancel)
    return code, records, failure, (result.stderr[-5:] if result is not None else [])
