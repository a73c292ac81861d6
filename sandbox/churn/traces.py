"""SPLAY's per-node traces and the Failure Trace Archive's event_trace (docs/churn.md, "Traces and
tools"): parsing within the scenario limits, writing, and the trace tools (window, speed-up,
amplitude)."""
from __future__ import annotations

import math
import random
import re

from .limits import MAX_EVENTS, MAX_NODES, MAX_SECONDS, ChurnError, _num, too_many

Intervals = list[tuple[float, float | None]]  # (up, down) per session; down None: up to the end


def parse_trace(text: str) -> list[Intervals]:
    """SPLAY's trace: one line per node, alternating on/off times (s) starting with an on time;
    an odd count leaves the node up. Blank lines and # comments are skipped (not nodes)."""
    nodes: list[Intervals] = []
    events = 0
    for lineno, raw in enumerate(text.split("\n"), 1):
        line = raw.split("#", 1)[0]
        if not line.strip():
            continue
        times: list[float] = []
        for m in re.finditer(r"\S+", line):
            try:
                v = float(m.group())
            except ValueError:
                raise ChurnError(lineno, m.start() + 1, f"expected a time in seconds, found '{m.group()}'") from None
            if not math.isfinite(v) or v < 0:
                raise ChurnError(lineno, m.start() + 1, f"a time is a number of seconds >= 0, found '{m.group()}'")
            if v > MAX_SECONDS:
                raise ChurnError(lineno, m.start() + 1, f"{m.group()} s is past {MAX_SECONDS // 86400:,} days, "
                                                        "the longest scenario")
            if times and v < times[-1]:
                raise ChurnError(lineno, m.start() + 1, f"times must not decrease ({m.group()} after {_num(times[-1])})")
            times.append(v)
        nodes.append([(times[i], times[i + 1] if i + 1 < len(times) else None) for i in range(0, len(times), 2)])
        events += len(times)
        _trace_bounds(lineno, len(nodes), events)
    return nodes


def _trace_bounds(lineno: int, nodes: int, events: int) -> None:
    """A trace is held to the scripts' limits, checked as its lines are read."""
    if nodes > MAX_NODES:
        raise too_many(lineno, "the trace has", nodes, MAX_NODES, "nodes")
    if events > MAX_EVENTS:
        raise too_many(lineno, "the trace has", events, MAX_EVENTS, "events")


def parse_fta(text: str) -> list[Intervals]:
    """The Failure Trace Archive's event_trace: rows of (among nine columns) node_id (3rd),
    event_type (6th: 1/availability/up or 0/unavailability/down), event_start_time (7th) and
    event_stop_time (8th), in seconds. Nodes are numbered in order of their ids; times count
    from the earliest event."""
    rows: dict[str, list[tuple[float, float]]] = {}
    events = 0
    for lineno, raw in enumerate(text.split("\n"), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        cols = line.split()
        if len(cols) < 8:
            raise ChurnError(lineno, 0, f"an FTA event_trace row has at least 8 columns, this one {len(cols)}")
        kind = cols[5].lower()
        if kind in ("1", "availability", "up", "available"):
            up = True
        elif kind in ("0", "unavailability", "down", "unavailable"):
            up = False
        else:
            raise ChurnError(lineno, 0, f"event_type (6th column) is 1/availability or 0/unavailability, not '{cols[5]}'")
        try:
            start, stop = float(cols[6]), float(cols[7])
        except ValueError:
            raise ChurnError(lineno, 0, "event_start_time and event_stop_time (7th, 8th columns) are numbers") from None
        if not (math.isfinite(start) and math.isfinite(stop)):
            raise ChurnError(lineno, 0, "event_start_time and event_stop_time (7th, 8th columns) are finite numbers")
        if stop < start:
            raise ChurnError(lineno, 0, f"the event stops ({cols[7]}) before it starts ({cols[6]})")
        if up:
            rows.setdefault(cols[2], []).append((start, stop))
        else:
            rows.setdefault(cols[2], [])
        events += 2 if up else 0
        _trace_bounds(lineno, len(rows), events)
    if not rows:
        raise ChurnError(1, 0, "no event in the trace")
    t0 = min((s for spans in rows.values() for s, _ in spans), default=0.0)
    span = max((e for spans in rows.values() for _, e in spans), default=t0) - t0
    if span > MAX_SECONDS:
        raise ChurnError(1, 0, f"the trace spans {span / 86400:,.0f} days: a scenario lasts at most "
                               f"{MAX_SECONDS // 86400:,} days")
    out: list[Intervals] = []
    for node in sorted(rows, key=lambda k: (len(k), k)):
        merged: Intervals = []
        for s, e in sorted(rows[node]):
            s, e = round(s - t0, 3), round(e - t0, 3)
            if merged and s <= (merged[-1][1] or 0):
                merged[-1] = (merged[-1][0], max(merged[-1][1] or 0, e))
            else:
                merged.append((s, e))
        out.append(merged)
    return out


def trace_text(nodes: list[Intervals]) -> str:
    """SPLAY's trace format."""
    lines = []
    for intervals in nodes:
        times: list[str] = []
        for up, down in intervals:
            times.append(_num(up))
            if down is not None:
                times.append(_num(down))
        lines.append(" ".join(times))
    return "\n".join(lines) + "\n"


def trace_speedup(nodes: list[Intervals], factor: float) -> list[Intervals]:
    """Time runs `factor` times faster (x2 maps a minute to 30 s)."""
    if factor <= 0:
        raise ValueError("the speed-up factor must be above 0")
    return [[(round(u / factor, 3), None if d is None else round(d / factor, 3)) for u, d in iv] for iv in nodes]


def trace_amplitude(nodes: list[Intervals], amplitude: float, seed: int = 1) -> list[Intervals]:
    """Scale the population by `amplitude` keeping its statistics: each node's timeline is kept
    floor(amplitude) times, and once more with probability frac(amplitude) (amplitude < 1: a
    random subset). Session and down-time distributions are those of the original nodes; the
    population curve and the joins and leaves per second are multiplied by `amplitude` (in
    expectation)."""
    if amplitude <= 0:
        raise ValueError("the amplitude must be above 0")
    expected = len(nodes) * amplitude
    if expected > MAX_NODES:
        raise ValueError(f"amplitude {_num(amplitude)} makes about {expected:,.0f} nodes of {len(nodes):,}: "
                         f"a scenario holds at most {MAX_NODES:,}")
    rng = random.Random(seed)
    whole, frac = int(amplitude), amplitude - int(amplitude)
    out: list[Intervals] = []
    for iv in nodes:
        copies = whole + (1 if rng.random() < frac else 0)
        out.extend([list(iv) for _ in range(copies)])
    return out


def trace_truncate(nodes: list[Intervals], start: float, end: float | None) -> list[Intervals]:
    """The window [start, end) of a trace, shifted to start at 0; a session still on at `end`
    stays on (odd count); nodes never up in the window are dropped."""
    out: list[Intervals] = []
    for iv in nodes:
        kept: Intervals = []
        for up, down in iv:
            if (end is not None and up >= end) or (down is not None and down <= start):
                continue
            off = None if down is None or (end is not None and down > end) else round(down - start, 3)
            kept.append((round(max(up, start) - start, 3), off))
        if kept:
            out.append(kept)
    return out


def derive_trace(nodes: list[Intervals], start: float | None = None, end: float | None = None,
                 speedup: float | None = None, amplitude: float | None = None, seed: int = 1) -> list[Intervals]:
    """The trace tools in their one order (CLI `churn trace` and the web editor): keep the
    window [start, end) of the scenario's own time, then speed it up, then scale its
    amplitude. ValueError names a bad factor or window."""
    if start is not None or end is not None:
        if start is not None and start < 0:
            raise ValueError("the window must start at 0 s or later")
        if end is not None and end <= (start or 0.0):
            raise ValueError("the window must end after it starts")
        nodes = trace_truncate(nodes, start or 0.0, end)
    if speedup is not None:
        nodes = trace_speedup(nodes, speedup)
    if amplitude is not None:
        nodes = trace_amplitude(nodes, amplitude, seed=seed)
    return nodes


FTA_KINDS = frozenset({"0", "1", "availability", "unavailability", "up", "down", "available", "unavailable"})
