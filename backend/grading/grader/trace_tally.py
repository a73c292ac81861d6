"""The runtime's message trace of one grading run, summed as it is read (docs/trace.md): per node
what it sent, served and reached; per harness operation the messages made for it.

A TraceTally takes a run's trace records one at a time, in the order the run wrote them, so that
the grader can sum a simulated run's trace while the simulation is still running (the records
come in between its output's polls; runner._simulate) instead of after it. RunData reads the
same records into the same tally when none was summed before (a cached or live run): the facts
are those of the records either way (tests/grading/test_trace_tally.py).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

CALLS = ("call", "ucall")                        # messages a node sends that ask something
CONTACTS = ("call", "ucall", "connect", "sendto")  # how a node reaches a peer it chose
SERVES = ("serve", "userve")
RAW_SENDS = ("send", "sendto")


@dataclass
class Operation:
    """An operation the harness ran (h.operation), measured by the runtime."""
    op: str
    node: int
    name: str = ""
    t: float = 0.0
    seconds: float = 0.0
    outcome: str = ""
    messages: int = 0          # rpc/urpc calls made for it, on every node
    bytes: int = 0             # bytes those calls sent
    depth: int = 0             # the longest chain of calls
    nodes: set[int] = field(default_factory=set)   # nodes that served a call of it


@dataclass
class NodeTraffic:
    """What one node's trace says it sent and served, over the whole run."""
    calls: int = 0             # rpc/urpc calls it made
    served: int = 0            # calls it served
    raw_sends: int = 0         # the app's own TCP sends and UDP datagrams
    bytes_out: int = 0
    bytes_in: int = 0
    errors: int = 0            # calls it served whose function raised (or was missing)
    peers: set[int] = field(default_factory=set)   # positions it reached by calls, connects, datagrams
    own_peers: set[int] = field(default_factory=set)   # ... outside the harness's operations
    talked: set[int] = field(default_factory=set)      # positions it exchanged any message with, either way
    learned: dict[int, float] = field(default_factory=dict)   # positions a message it received named: when first

    @property
    def messages(self) -> int:
        return self.calls + self.raw_sends


class TraceTally:
    """traffic: position -> NodeTraffic; operations: operation id -> Operation; rows: the rows
    read; capped: the nodes whose trace reached its cap (a `capped` row)."""

    def __init__(self) -> None:
        self.traffic: dict[int, NodeTraffic] = defaultdict(NodeTraffic)
        self.operations: dict[str, Operation] = {}
        self.rows = 0
        self.capped: set[int] = set()

    def add_record(self, record: dict[str, Any]) -> None:
        """A run's record: a trace record is summed, any other is not the trace's."""
        if record.get("kind") == "trace":
            self.add(int(record.get("node", 0)), record.get("rows") or [])

    def _op(self, op: str) -> Operation:
        o = self.operations.get(op)
        if o is None:
            try:
                node = int(op.split(":", 1)[0])
            except ValueError:
                node = 0
            o = self.operations[op] = Operation(op, node)
        return o

    def add(self, node: int, rows: list[Any]) -> None:
        """One trace record's rows, of node `node`; a row that does not read as one is skipped."""
        traffic = self.traffic
        mine = traffic[node]
        for row in rows:
            try:
                t, typ, peer, name, out, inb, outcome, op, depth, dur, count = row[:11]
                out, inb, count, depth = int(out), int(inb), int(count), int(depth)
            except (TypeError, ValueError):
                continue
            self.rows += 1
            mine.bytes_out += out
            mine.bytes_in += inb
            if typ in CALLS:
                mine.calls += count
            elif typ in RAW_SENDS:
                mine.raw_sends += count
            elif typ in SERVES:
                mine.served += count
                if outcome == "error":
                    mine.errors += count
            elif typ == "capped":
                self.capped.add(node)
            elif typ == "learned":
                if isinstance(peer, int):
                    mine.learned.setdefault(peer, float(t))
                continue
            if isinstance(peer, int) and peer > 0 and peer != node:
                mine.talked.add(peer)
                if typ in CALLS:   # a call is an exchange both ways (a served call may not name its caller)
                    traffic[peer].talked.add(node)
                if typ in CONTACTS:
                    mine.peers.add(peer)
                    if not op:
                        mine.own_peers.add(peer)
            if not op:
                continue
            o = self._op(str(op))
            if typ == "op":
                o.name, o.t, o.seconds, o.outcome, o.node = str(name), float(t), float(dur), str(outcome), node
            elif typ in CALLS:
                o.messages += count
                o.bytes += out
                o.depth = max(o.depth, depth)
            elif typ in SERVES:
                o.nodes.add(node)
