"""A local run's options checked and compiled into `args` before any node starts
(sandbox/run_local.py): the app's descriptor (job.nodes list, asked output limits), the output
limits, the emulated network's per-node blocks and the churn plan. Each returns an error message
(the runner prints it and exits 2) or None."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

SANDBOX = Path(__file__).resolve().parent
if str(SANDBOX) not in sys.path:
    sys.path.insert(0, str(SANDBOX))
import run_records  # noqa: E402,F401  (puts daemon/ on the path for splayd.output_limits)
from splayd.output_limits import LimitError, OutputLimits, parse_size, within  # noqa: E402


def bootstrap_list(args: argparse.Namespace) -> str | None:
    """The app's descriptor's list_type/list_size into args (job.nodes is that list, as on the
    service). A descriptor the service would refuse (e.g. nb_splayds beyond its live limit,
    which a simulation may exceed) is not an error here: a warning, and every node listed."""
    args.list_type, args.list_size = "head", 0
    args.asked_log_rate = args.asked_log_size = None
    if str(SANDBOX.parent / "backend") not in sys.path:
        sys.path.insert(0, str(SANDBOX.parent / "backend"))
    from lib.descriptor import DescriptorError, descriptor_parse  # backend/lib: no Django
    try:
        d = descriptor_parse(Path(args.app).read_text(errors="replace"), Path(args.app).name)
    except DescriptorError as e:
        print(f"run_local: warning: descriptor not used ({e}): job.nodes lists every node", file=sys.stderr)
        return None
    except OSError:
        return None   # run() names the missing file
    if d:
        args.list_type, args.list_size = d.list_type, d.list_size
        args.asked_log_rate, args.asked_log_size = d.get("log_lines_per_second"), d.get("log_max_size")
    return None


def output_limits(args: argparse.Namespace) -> str | None:
    """The run's output limits into args.output_limits: the daemon's defaults, or
    --log-lines-per-second / --log-max-size (this machine's owner), lowered by what the app's
    descriptor asks; an error message or None."""
    try:
        ceiling = OutputLimits(args.log_lines_per_second, parse_size(args.log_max_size))
        args.output_limits = within(ceiling, getattr(args, "asked_log_rate", None),
                                    getattr(args, "asked_log_size", None), "this run (--log-lines-per-second, "
                                    "--log-max-size)")
    except LimitError as e:
        return str(e)
    return None


def network_blocks(args: argparse.Namespace) -> str | None:
    """Compile --net/--loss/--bandwidth/--partition into args.net_blocks; an error message or None."""
    if str(SANDBOX) not in sys.path:
        sys.path.insert(0, str(SANDBOX))
    import netmodel  # sandbox/netmodel.py, beside this file
    try:
        spec = netmodel.parse_net(args.net, loss=args.loss, bandwidth=args.bandwidth,
                                  partitions=args.partition or [], asymmetric=args.asymmetric, mtu=args.mtu)
    except netmodel.NetModelError as e:
        return str(e)
    args.net_blocks = netmodel.compile_job(spec, args.nodes, args.seed or 0, duration=args.time)
    plan = getattr(args, "churn_plan", None)
    if plan is not None and any(e.kind not in ("join", "leave") for e in plan.events):
        import churn
        args.net_blocks = netmodel.with_overlay(args.net_blocks, churn.network_overlay(plan, args.nodes, args.seed or 1),
                                                args.nodes, args.mtu)
    args.net_epoch = time.time()   # partition offsets count from the launch
    return None


def churn_plan(args: argparse.Namespace) -> str | None:
    """Load --churn into args.churn_plan (and the node count); an error message or None."""
    if str(SANDBOX) not in sys.path:
        sys.path.insert(0, str(SANDBOX))
    import churn  # sandbox/churn.py
    try:
        text = Path(args.churn).read_text()
    except OSError as e:
        return f"cannot read {args.churn}: {e.strerror}"
    errors = churn.script_errors(text) if churn.load_kind(text) == "script" else []
    try:
        if errors:
            raise errors[0]
        plan = churn.load(text, seed=args.seed if args.seed is not None else 1)
    except churn.ChurnError as e:
        return "\n".join(f"{args.churn}:{x.line}:{x.column}: {x.message}" for x in (errors or [e]))
    if plan.nodes == 0:
        return f"{args.churn}: the scenario never starts a node"
    if args.nodes is not None and args.nodes != plan.nodes:
        return f"{args.churn} uses {plan.nodes} nodes: leave out --nodes, or give --nodes {plan.nodes}"
    args.nodes = plan.nodes
    args.churn_plan = plan
    return None
