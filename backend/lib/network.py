"""A job's emulated network, seen from the controller: validation of what the user chose.

The models live in sandbox/netmodel.py (standard library only), shared with the local runner
and the daemons, which compile their own instances' blocks from the same options
(docs/network.md). The controller stores the options (Job.network) and sends them, with the
placement seed, in each daemon's LIST.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

SANDBOX_DIR = Path(__file__).resolve().parents[2] / "sandbox"
if str(SANDBOX_DIR) not in sys.path:
    sys.path.append(str(SANDBOX_DIR))

import netmodel  # noqa: E402  (sandbox/netmodel.py)

NetModelError = netmodel.NetModelError
MAX_FILE_BYTES = 4 * 1024 * 1024
OPTION_KEYS = ("net", "loss", "bandwidth", "partitions", "asymmetric", "mtu", "file_text")


def network_options_clean(options: dict[str, Any] | None) -> dict[str, Any]:
    """The stored form of a job's network choice ({} for a LAN): raises NetModelError naming
    the problem. `file_text` carries an uploaded matrix or trace (at most 4 MB)."""
    if not options:
        return {}
    unknown = sorted(set(options) - set(OPTION_KEYS))
    if unknown:
        raise NetModelError(f"unknown network option(s): {', '.join(unknown)}")
    text = options.get("file_text")
    if text is not None and len(str(text).encode()) > MAX_FILE_BYTES:
        raise NetModelError("the matrix or trace file is larger than 4 MB")
    spec = netmodel.spec_from_options(options)
    return {k: v for k, v in spec.options.items() if v not in (None, [], False)} if spec.active else {}


def network_label(options: dict[str, Any] | None) -> str:
    """What the UI and the plots' legends show: 'king, loss 1%, 10mbit'."""
    if not options:
        return "lan"
    parts = [str(options.get("net") or "lan")]
    if options.get("loss") not in (None, "", 0, "0"):
        parts.append(f"loss {options['loss']}")
    if options.get("bandwidth"):
        parts.append(str(options["bandwidth"]))
    for p in options.get("partitions") or []:
        parts.append(f"partition {p}")
    return ", ".join(parts)
