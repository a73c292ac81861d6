"""What a job's commands carry, checked, and what a node's job.json is made of.

`register`/`list` name limits (checked against this daemon's ceilings: `runtime_limits`, refusals
start with a SPLAY-style code, `above_ceiling`), an emulated network (compiled per instance by
sandbox/netmodel.py: `compile_network`) and the bootstrap list's shape (`bootstrap_nodes`).
jobs.py keeps the state and the commands; this module is pure, apart from loading netmodel.py.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from .config import MB, Config
from .instances import fmt_size
from .output_limits import JOB_BUDGET_KEY, refusal


class CommandError(Exception):
    """A command the daemon refuses; the message is the reply's reason."""


def netmodel_module(sandbox_dir: Path) -> Any:
    """sandbox/netmodel.py of this daemon's sandbox directory, loaded once (after
    netmodel_placement.py beside it, which it imports by that name)."""
    import importlib.util
    import sys
    for module_name, file_name in (("netmodel_placement", "netmodel_placement.py"),
                                   ("splaylab_netmodel", "netmodel.py")):
        if module_name in sys.modules:
            continue
        spec_file = sandbox_dir / file_name
        loader = importlib.util.spec_from_file_location(module_name, spec_file)
        if loader is None or loader.loader is None or not spec_file.is_file():
            raise CommandError(f"network: cannot load {spec_file}")
        module = importlib.util.module_from_spec(loader)
        sys.modules[module_name] = module   # dataclasses look their module up there
        loader.loader.exec_module(module)
    return sys.modules["splaylab_netmodel"]


def compile_network(sandbox_dir: Path, network: Any, nodes: list[int], duration: float) -> dict[int, Any]:
    """The `net` blocks of this daemon's instances, compiled by sandbox/netmodel.py from the
    options the controller sent (docs/network.md); {} when nothing is emulated."""
    if not isinstance(network, dict) or not isinstance(network.get("options"), dict):
        raise CommandError("network: expected {options, seed, nodes}")
    netmodel = netmodel_module(sandbox_dir)
    try:
        spec = netmodel.spec_from_options(network["options"])
        blocks = netmodel.compile_job(spec, int_arg(network, "nodes", 1), int_arg(network, "seed", 0),
                                      duration=duration, positions=nodes)
    except netmodel.NetModelError as e:
        raise CommandError(f"network: {e}") from None
    overlay = network.get("overlay")  # a churn scenario's partitions and loss/latency phases
    if overlay is not None and not (isinstance(overlay, dict) and isinstance(overlay.get("partitions"), list)
                                    and isinstance(overlay.get("phases"), list)):
        raise CommandError("network.overlay: expected {partitions: [...], phases: [...]}")
    blocks = netmodel.with_overlay(blocks, overlay, len(nodes), spec.mtu)
    return dict(zip(nodes, blocks)) if blocks else {}


def int_arg(cmd: dict[str, Any], name: str, minimum: int = 0) -> int:
    v = cmd.get(name)
    if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
        raise CommandError(f"{name}: expected an integer >= {minimum}, got {v!r}")
    return v


def bootstrap_nodes(nodes: list[Any], list_type: str, list_size: int,
                    rng: random.Random | None = None) -> list[Any]:
    """job.nodes of one instance (SPLAY's list_type/list_size): head = the first list_size
    nodes of the deployment, random = list_size of them picked at random (per instance);
    list_size 0 (or at least the deployment) = all of them, in deployment order."""
    if list_size <= 0 or list_size >= len(nodes):
        return list(nodes)
    if list_type == "random":
        return (rng or random).sample(nodes, list_size)
    return list(nodes[:list_size])


# job.json "limits" (read by the Lua runtime) ← the controller's "limits" object, within
# this daemon's ceilings (a request above one is refused with the SPLAY-style code).
RUNTIME_LIMITS = ("max_sockets", "max_send", "max_receive", "udp_drop_ratio", "disk_max_size",
                  "disk_max_files", "log_lines_per_second", "log_max_size")
# The output limits (output_limits.py), enforced by the daemon on the node's lines; they ride
# in the same object (job.json shows them to the node; the runtime ignores them). A job spread
# over several daemons gets from the controller a share of its output budget in `log_max_size`
# and the whole in `log_max_size_of_job`, which only the "log budget" record names (the same
# words as on one daemon, in the local runner and in the simulator).


def above_ceiling(key: str, asked: int, ceiling: int) -> str:
    """The refusal of a limit asked above the owner's ceiling, code first."""
    if key == "disk_max_size":
        return f"INVALID_DISK: asked {fmt_size(asked)} of disk per node, this daemon allows {fmt_size(ceiling)}"
    if key == "disk_max_files":
        return f"INVALID_DISK: asked {asked} files per node, this daemon allows {ceiling}"
    if key in ("max_send", "max_receive"):
        return (f"INVALID_NET: asked {key} = {fmt_size(asked)} per node, "
                f"this daemon allows {fmt_size(ceiling)}")
    if key == "max_sockets":
        return f"INVALID_SOCKETS: asked {asked} sockets per node, this daemon allows {ceiling}"
    if key in ("log_lines_per_second", "log_max_size"):
        return refusal(key, asked, ceiling, "this daemon")
    raise KeyError(key)



def runtime_limits(cfg: Config, asked: Any) -> dict[str, Any]:
    if asked is None:
        asked = {}
    if not isinstance(asked, dict):
        raise CommandError("limits: expected an object")
    ceilings: dict[str, int | float] = {
        "max_sockets": cfg.max_sockets,
        "max_send": cfg.max_send_mb * MB,
        "max_receive": cfg.max_receive_mb * MB,
        "udp_drop_ratio": 0.0,
        "disk_max_size": cfg.disk_max_size_mb * MB,
        "disk_max_files": cfg.disk_max_files,
        "log_lines_per_second": cfg.log_lines_per_second,
        "log_max_size": cfg.log_max_size_mb * MB,
    }
    out: dict[str, Any] = dict(ceilings)
    for key, value in asked.items():
        if key == JOB_BUDGET_KEY:  # informative: the share in log_max_size is what is enforced
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise CommandError(f"limits.{key}: expected an integer >= 0, got {value!r}")
            out[key] = value
            continue
        if key not in ceilings:
            raise CommandError(f"limits.{key}: unknown limit (known: {', '.join(RUNTIME_LIMITS)})")
        if key == "udp_drop_ratio":
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
                raise CommandError(f"limits.udp_drop_ratio: expected a number between 0 and 1, got {value!r}")
            out[key] = float(value)
            continue
        minimum = 1 if key == "log_lines_per_second" else 0
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise CommandError(f"limits.{key}: expected an integer >= {minimum}, got {value!r}")
        if value > ceilings[key]:
            raise CommandError(above_ceiling(key, value, int(ceilings[key])))
        out[key] = value
    return out


# job.json "trace" (read by the Lua runtime, docs/trace.md) ← `list`'s "trace".
TRACE_DEFAULT_EVENTS = 20_000
TRACE_MAX_EVENTS = 1_000_000


def trace_block(raw: Any) -> dict[str, int] | None:
    """The job's message trace: None (absent, null, false) for none; true or {} for the
    default listing; {"max_events": N} with 1 <= N <= TRACE_MAX_EVENTS."""
    if raw is None or raw is False:
        return None
    if raw is True:
        return {"max_events": TRACE_DEFAULT_EVENTS}
    if not isinstance(raw, dict):
        raise CommandError(f'trace: expected true, false or {{"max_events": N}}, got {raw!r}')
    unknown = sorted(set(raw) - {"max_events"})
    if unknown:
        raise CommandError(f"trace.{unknown[0]}: unknown option (known: max_events)")
    n = raw.get("max_events", TRACE_DEFAULT_EVENTS)
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= TRACE_MAX_EVENTS:
        raise CommandError(f"trace.max_events: expected an integer between 1 and {TRACE_MAX_EVENTS:,}, got {n!r}")
    return {"max_events": n}
