"""The runtime's message trace (docs/trace.md): rows checked, and summed into a summary.

Model-free and standard library only: the controller (traces.services, incrementally, batch by
batch) and `./splaylab trace` (cli/trace.py, over a run's JSONL or the API's rows) build the
same summary with the same code.

A row is [t, type, peer, name, out, in, outcome, op, depth, dur, count]. What the summary
counts, per tracing node:
- messages_out: the messages it started: `count` of its call, ucall, send and sendto rows;
- messages_in: the requests it received and answered: `count` of its serve and userve rows
  (raw receives are not rows, and a call's reply is in the call's `in` bytes, not a message);
- bytes_out / bytes_in: the sums of `out` / `in` over all its rows;
- peers: how many distinct peers (positions, or "ip:port" outside the job) its rows name;
- capped: it wrote a `capped` row (its listing stopped; the sums stay exact, docs/trace.md).
Per operation (`op`, "" excluded): messages and bytes (out + in) of the rows that started a
message (call, ucall, send, sendto: each exchange counted once, on the side that started it),
the deepest `depth` of any of its rows, and its name (from its `op` row, "" until seen).
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

COLUMNS = ("t", "type", "peer", "name", "out", "in", "outcome", "op", "depth", "dur", "count")
# A row with the node that wrote it, as the API and `./splaylab trace --json` give rows.
NODE_COLUMNS = (COLUMNS[0], "node", *COLUMNS[1:])
TYPES = ("call", "serve", "ucall", "userve", "connect", "send", "sendto", "op", "capped")
STARTED = frozenset({"call", "ucall", "send", "sendto"})  # a message this node started
SERVED = frozenset({"serve", "userve"})  # a request this node received and answered
MAX_TEXT = 200  # name, peer, op, outcome: longer is a malformed row
MAX_PEERS = 10_000  # distinct peers kept per node (beyond, `peers` stops growing)
MAX_OPS = 20_000  # operations kept per summary (beyond, `ops_truncated`)

Row = list[Any]


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _count(v: Any) -> int | None:
    """An integer column (bytes, depth, count): cjson may write 3 as 3.0."""
    if _number(v) and v >= 0 and float(v).is_integer():
        return int(v)
    return None


def row_clean(row: Any) -> tuple[Row | None, str]:
    """A row as the runtime wrote it → (the row with integer columns as ints, "") or (None, why)."""
    if not isinstance(row, list) or len(row) != len(COLUMNS):
        return None, f"a row is an array of {len(COLUMNS)} columns"
    t, kind, peer, name, out, inn, outcome, op, depth, dur, count = row
    if not _number(t):
        return None, "t must be a number"
    if kind not in TYPES:
        return None, f"type must be one of {', '.join(TYPES)}"
    if not ((isinstance(peer, int) and not isinstance(peer, bool) and peer >= 0)
            or (isinstance(peer, str) and len(peer) <= MAX_TEXT)):
        return None, "peer must be a position or an \"ip:port\""
    if not all(isinstance(v, str) and len(v) <= MAX_TEXT for v in (name, outcome, op)):
        return None, f"name, outcome and op must be strings of at most {MAX_TEXT} characters"
    ints = [_count(v) for v in (out, inn, depth, count)]
    if any(v is None for v in ints):
        return None, "out, in, depth and count must be integers >= 0"
    if not _number(dur) or dur < 0:
        return None, "dur must be a number >= 0"
    out, inn, depth, count = ints
    return [t, kind, peer, name, out, inn, outcome, op, depth, dur, count], ""


def op_sort_key(op: str) -> tuple:
    """"2:10" after "2:9": the numbers of an operation id, compared as numbers."""
    parts = op.split(":")
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts)


class Summary:
    """Sums over rows, per node and per operation; add() batch by batch, state() to store
    (JSON) and from_state() to go on."""

    def __init__(self) -> None:
        # node -> [rows, messages_out, messages_in, bytes_out, bytes_in, capped, peers]
        self.nodes: dict[int, list[Any]] = {}
        # op -> [name, messages, bytes, max_depth]
        self.ops: dict[str, list[Any]] = {}
        self.ops_truncated = False

    @classmethod
    def from_state(cls, state: dict[str, Any] | None) -> Summary:
        s = cls()
        state = state or {}
        for k, (rows, m_out, m_in, b_out, b_in, capped, peers) in (state.get("nodes") or {}).items():
            s.nodes[int(k)] = [rows, m_out, m_in, b_out, b_in, bool(capped), set(peers)]
        s.ops = {op: list(v) for op, v in (state.get("ops") or {}).items()}
        s.ops_truncated = bool(state.get("ops_truncated"))
        return s

    def state(self) -> dict[str, Any]:
        return {"nodes": {str(k): [*v[:6], sorted(v[6], key=str)] for k, v in self.nodes.items()},
                "ops": self.ops, "ops_truncated": self.ops_truncated}

    def add(self, node: int, rows: Iterable[Row]) -> None:
        """Rows of one node, already checked (row_clean)."""
        n = self.nodes.get(node)
        if n is None:
            n = self.nodes[node] = [0, 0, 0, 0, 0, False, set()]
        peers: set = n[6]
        for t, kind, peer, name, out, inn, outcome, op, depth, dur, count in rows:
            n[0] += 1
            n[3] += out
            n[4] += inn
            if kind in STARTED:
                n[1] += count
            elif kind in SERVED:
                n[2] += count
            elif kind == "capped":
                n[5] = True
            if peer not in (0, "") and len(peers) < MAX_PEERS:
                peers.add(peer)
            if not op:
                continue
            o = self.ops.get(op)
            if o is None:
                if len(self.ops) >= MAX_OPS:
                    self.ops_truncated = True
                    continue
                o = self.ops[op] = ["", 0, 0, 0]
            if kind == "op" and not o[0]:
                o[0] = name
            if kind in STARTED:
                o[1] += count
                o[2] += out + inn
            o[3] = max(o[3], depth)

    def mark_capped(self, nodes: Iterable[int]) -> None:
        for k in nodes:
            if k in self.nodes:
                self.nodes[k][5] = True

    def to_dict(self) -> dict[str, Any]:
        """The summary as the API and `./splaylab trace --json` give it."""
        nodes = [{"node": k, "rows": v[0], "messages_out": v[1], "messages_in": v[2], "bytes_out": v[3],
                  "bytes_in": v[4], "peers": len(v[6]), "capped": v[5]} for k, v in sorted(self.nodes.items())]
        totals = {key: sum(n[key] for n in nodes)
                  for key in ("rows", "messages_out", "messages_in", "bytes_out", "bytes_in")}
        ops = [{"op": op, "name": v[0], "messages": v[1], "bytes": v[2], "max_depth": v[3]}
               for op, v in sorted(self.ops.items(), key=lambda kv: op_sort_key(kv[0]))]
        return {"nodes": nodes, "totals": totals, "ops": ops, "capped": any(n["capped"] for n in nodes),
                "ops_truncated": self.ops_truncated}
