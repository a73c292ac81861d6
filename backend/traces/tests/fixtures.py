"""A small known trace: node 1 runs one lookup (op "1:5:1") that calls node 2 (which calls
node 3 on its behalf) and node 3 (which times out), and sends one raw datagram outside the
job; node 3 is capped and aggregates afterwards. SUMMARY is what every count must be."""
from __future__ import annotations

import json
from typing import Any

T0 = 1_700_000_000.0  # the nodes' epoch clock at the job's start
OP = "1:5:1"

ROWS: dict[int, list[list[Any]]] = {
    1: [[T0 + 0.100, "op", 0, "lookup", 0, 0, "ok", OP, 0, 0.05, 1],
        [T0 + 0.101, "call", 2, "find", 100, 40, "ok", OP, 1, 0.01, 1],
        [T0 + 0.120, "call", 3, "find", 100, 0, "timeout", OP, 1, 0.03, 1],
        [T0 + 0.200, "sendto", "10.0.0.9:80", "", 7, 0, "ok", "", 0, 0, 1]],
    2: [[T0 + 0.105, "serve", 1, "find", 40, 100, "ok", OP, 1, 0.001, 1],
        [T0 + 0.106, "call", 3, "find", 50, 20, "ok", OP, 2, 0.002, 1]],
    3: [[T0 + 0.107, "serve", 2, "find", 20, 50, "ok", OP, 2, 0.0005, 1],
        [T0 + 0.110, "capped", 0, "", 0, 0, "ok", "", 0, 0, 1],
        [T0 + 0.121, "serve", 1, "find", 80, 200, "ok", OP, 1, 0.002, 2]],
}

SUMMARY = {
    "nodes": [
        {"node": 1, "rows": 4, "messages_out": 3, "messages_in": 0, "bytes_out": 207, "bytes_in": 40,
         "peers": 3, "capped": False},
        {"node": 2, "rows": 2, "messages_out": 1, "messages_in": 1, "bytes_out": 90, "bytes_in": 120,
         "peers": 2, "capped": False},
        {"node": 3, "rows": 3, "messages_out": 0, "messages_in": 3, "bytes_out": 100, "bytes_in": 250,
         "peers": 2, "capped": True},
    ],
    "totals": {"rows": 9, "messages_out": 4, "messages_in": 4, "bytes_out": 397, "bytes_in": 410},
    "ops": [{"op": OP, "name": "lookup", "messages": 3, "bytes": 310, "max_depth": 2}],
    "capped": True,
    "ops_truncated": False,
}


def trace_line(node: int, seq: int, rows: list[list[Any]], t: float = T0 + 1) -> dict[str, Any]:
    """A `trace` line as a daemon's log batch carries it."""
    return {"node": node, "seq": seq, "t": t, "level": "trace", "text": json.dumps({"rows": rows})}


def probe_line(node: int, seq: int, name: str, value: Any, fields: dict | None = None) -> dict[str, Any]:
    rec: dict[str, Any] = {"name": name, "value": value}
    if fields is not None:
        rec["fields"] = fields
    return {"node": node, "seq": seq, "t": T0 + 2, "level": "probe", "text": json.dumps(rec)}
