"""Churn scenarios: SPLAY's synthetic churn language, SPLAY and FTA traces, and the schedule
both compile to (docs/churn.md).

Python standard library only: the CLI, the controller, the daemons and the simulator import it
(like netmodel.py). The pipeline:

    script = parse_script(text)              # statements; ChurnError names line and column
    plan = schedule(script, seed=1)          # joins/leaves of numbered nodes, network events
    plan.scheduled_text()                    # the scheduled form: instants only, re-parsable
    trace = plan.trace()                     # SPLAY's per-node on/off trace
    population_steps(plan.events)            # (t, population) for the plots

SPLAY's scripts are accepted unchanged (../shared/reference/churn-language.md). Where SPLAY's
generator is silent or odd, the choices are written in docs/churn.md: a unit alone is one of it
(`4*d` = 4 days), keywords and units are case-insensitive, numbers may have decimals, `/* */`
comments may span lines, a leave may end `gracefully`, and the network statements (partition,
heal, loss, latency) are SplayLab's.
"""
from __future__ import annotations

import bisect
import math
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

UNITS = {"s": 1, "sec": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "minute": 60, "minutes": 60,
         "h": 3600, "hour": 3600, "hours": 3600, "d": 86400, "day": 86400, "days": 86400}
JOIN_WORDS = {"join", "add", "increase", "inc"}
LEAVE_WORDS = {"leave", "remove", "decrease", "dec"}
INSTANT_ONLY = {"set_max", "set_ratio", "stop", "heal"}
# Same limits everywhere (the service, `run --sim`, `run --churn`, `churn check`), checked from
# each statement's counts before any event is made (docs/churn.md, "Limits"): a 20-byte
# `at 0s join 999999` is refused at once instead of costing seconds of CPU.
MAX_NODES = 10_000  # joins or leaves of one statement, distinct nodes of a scenario (the simulator's maximum)
MAX_EVENTS = 100_000  # joins, leaves and network changes of a scenario (~0.3 s to schedule)
MAX_SECONDS = 3650 * 86400  # ten years: instants stay finite numbers a plot can bin


class ChurnError(ValueError):
    """A problem in a script or a trace, at a line and column (1-based; column 0: whole line)."""

    def __init__(self, line: int, column: int, message: str) -> None:
        self.line, self.column, self.message = line, column, message
        where = f"line {line}, column {column}" if column else f"line {line}"
        super().__init__(f"{where}: {message}")


# ---------------------------------------------------------------------------------------------
# Lexer

@dataclass(frozen=True)
class Token:
    kind: str  # "num", "word", or the symbol itself: + - * / ( ) , %
    text: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"'{self.text}'"


_TOKEN = re.compile(r"(?P<num>\d+(?:\.\d+)?|\.\d+)|(?P<word>[A-Za-z][A-Za-z.]*)|(?P<sym>[-+*/(),%])|(?P<space>[ \t\r]+)")


def _lines_without_comments(text: str) -> list[str]:
    """The script's lines with comments blanked out (columns stay where they were)."""
    out: list[str] = []
    in_block = False
    for lineno, raw in enumerate(text.split("\n"), 1):
        chars = list(raw)
        i = 0
        while i < len(chars):
            if in_block:
                if raw.startswith("*/", i):
                    chars[i] = chars[i + 1] = " "
                    in_block = False
                    i += 2
                    continue
                chars[i] = " "
                i += 1
            elif raw.startswith("/*", i):
                chars[i] = chars[i + 1] = " "
                in_block = True
                i += 2
            elif raw.startswith("//", i) or raw[i] == "#":
                chars[i:] = [" "] * (len(chars) - i)
                break
            else:
                i += 1
        out.append("".join(chars))
    if in_block:
        raise ChurnError(len(out), 0, "a /* comment is never closed with */")
    return out


def _tokens(line: str, lineno: int) -> list[Token]:
    toks: list[Token] = []
    pos = 0
    while pos < len(line):
        m = _TOKEN.match(line, pos)
        if not m:
            raise ChurnError(lineno, pos + 1, f"unexpected character '{line[pos]}'")
        if m.lastgroup != "space":
            kind = m.lastgroup if m.lastgroup != "sym" else m.group()
            toks.append(Token(kind, m.group(), lineno, pos + 1))
        pos = m.end()
    return toks


# ---------------------------------------------------------------------------------------------
# Parser: one statement per line, recursive descent

@dataclass(frozen=True)
class Quantity:
    value: float
    relative: bool  # a percentage of the population at the time of the action

    def __str__(self) -> str:
        return f"{_num(self.value)}{'%' if self.relative else ''}"


@dataclass(frozen=True)
class Statement:
    line: int
    t1: float
    t2: float | None  # None: an instant
    action: str  # join leave const set_max set_ratio stop partition heal loss latency
    quantity: Quantity | None = None
    graceful: bool = False  # a leave that lets the node end its work (SIGTERM), not a failure
    churn: Quantity | None = None
    churn_per: float | None = None  # `churn Q% per T`: Q% per slice of T seconds
    groups: tuple[float, ...] = ()  # partition: fractions of the nodes, one per group
    factor: float | None = None  # latency scale; loss: the probability (None: the job's own)


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.12g}"


class _Parser:
    def __init__(self, toks: list[Token], lineno: int, line_len: int) -> None:
        self.toks, self.i, self.lineno, self.end_col = toks, 0, lineno, line_len + 1

    # helpers
    def peek(self, k: int = 0) -> Token | None:
        return self.toks[self.i + k] if self.i + k < len(self.toks) else None

    def word(self, *words: str) -> bool:
        t = self.peek()
        return t is not None and t.kind == "word" and t.text.lower() in words

    def take(self) -> Token:
        t = self.peek()
        if t is None:
            raise self.error("unexpected end of line")
        self.i += 1
        return t

    def error(self, message: str, tok: Token | None = None) -> ChurnError:
        tok = tok if tok is not None else self.peek()
        return ChurnError(self.lineno, tok.col if tok else self.end_col, message)

    def expect_word(self, what: str, *words: str) -> Token:
        if not self.word(*words):
            t = self.peek()
            raise self.error(f"expected {what}" + (f", found {t}" if t else ""))
        return self.take()

    # expressions: values carry a dimension, seconds (a time) or none (a number)
    def expr(self) -> tuple[float, bool]:
        value, is_time = self.term()
        while (t := self.peek()) is not None:
            joins_times = t.kind == "," or (t.kind == "word" and t.text.lower() == "and")
            if not (joins_times or t.kind in ("+", "-")):
                break
            if joins_times and not is_time:
                break  # ',' after a number is not ours (partition 20%, 30%)
            self.take()
            rhs, rhs_time = self.term()
            if is_time != rhs_time:
                raise self.error(f"cannot add a {'time' if is_time else 'number'} and a "
                                 f"{'time' if rhs_time else 'number'}: give both a unit", t)
            value = value - rhs if t.kind == "-" else value + rhs
        return value, is_time

    def term(self) -> tuple[float, bool]:
        value, is_time = self.factor()
        while self.peek() is not None and self.peek().kind == "*":
            star = self.take()
            rhs, rhs_time = self.factor()
            if is_time and rhs_time:
                raise self.error("cannot multiply two times", star)
            value, is_time = value * rhs, is_time or rhs_time
        return value, is_time

    def factor(self) -> tuple[float, bool]:
        t = self.peek()
        if t is None:
            raise self.error("expected a number, found the end of the line")
        if t.kind == "(":
            self.take()
            value, is_time = self.expr()
            if self.peek() is None or self.peek().kind != ")":
                raise self.error("expected ')'" + (f", found {self.peek()}" if self.peek() else ""))
            self.take()
        elif t.kind == "num":
            self.take()
            value, is_time = float(t.text), False
        elif t.kind == "word" and t.text.lower() in UNITS:
            self.take()  # a unit alone: one of it (4*d is four days)
            return float(UNITS[t.text.lower()]), True
        else:
            raise self.error(f"expected a number, found {t}")
        if not is_time and self.word(*UNITS):
            value, is_time = value * UNITS[self.take().text.lower()], True
        return value, is_time

    def time(self, what: str) -> float:
        start = self.peek()
        value, is_time = self.expr()
        if not is_time:
            raise self.error(f"{what}: expected a time unit (s, m, h, d) after {_num(value)}",
                             self.peek() or start)
        if value < 0:
            raise self.error(f"{what} is negative ({_num(value)} s)", start)
        if not value <= MAX_SECONDS:  # inf and nan too
            raise self.error(f"{what} is past {MAX_SECONDS // 86400:,} days, the longest scenario", start)
        return round(value, 3)

    def quantity(self, what: str, relative_only: bool = False, absolute_only: bool = False) -> Quantity:
        start = self.peek()
        if start is None:
            raise self.error(f"expected {what}")
        value, is_time = self.expr()
        if is_time:
            raise self.error(f"{what} is a number, not a time", start)
        relative = self.peek() is not None and self.peek().kind == "%"
        if relative:
            self.take()
        if relative_only and not relative:
            raise self.error(f"{what} is a percentage: expected '%' after {_num(value)}")
        if absolute_only and relative:
            raise self.error(f"{what} is a number of nodes, not a percentage", start)
        if value < 0:
            raise self.error(f"{what} is negative ({_num(value)})", start)
        if not math.isfinite(value):
            raise self.error(f"{what} is too large", start)
        return Quantity(value, relative)

    # a statement
    def statement(self) -> Statement:
        first = self.peek()
        if self.word("at"):
            self.take()
            t1, t2 = self.time("the instant"), None
        elif self.word("from"):
            self.take()
            t1 = self.time("the start")
            self.expect_word("'to' and the end of the period", "to")
            to_tok = self.peek()
            t2 = self.time("the end")
            if t2 <= t1:
                raise self.error(f"the period ends ({_num(t2)} s) before it starts ({_num(t1)} s)", to_tok)
        else:
            raise self.error("a statement starts with 'at TIME' or 'from TIME to TIME'", first)
        st = self.action(t1, t2)
        if st.action in INSTANT_ONLY and t2 is not None:
            raise ChurnError(self.lineno, first.col, f"'{st.action.replace('_', ' ')}' happens at an instant: "
                             "write it 'at TIME ...'")
        if self.word("churn"):
            churn_tok = self.take()
            if t2 is None:
                raise self.error("additional churn needs a period: 'from TIME to TIME ... churn Q%'", churn_tok)
            if st.action not in ("join", "leave", "const"):
                raise self.error(f"additional churn goes with join, leave or const, not {st.action}", churn_tok)
            churn = self.quantity("the churn")
            per = None
            if self.peek() is not None and (self.peek().kind == "/" or self.word("per", "each")):
                self.take()
                per = self.time("the churn's time slice")
                if per <= 0:
                    raise self.error("the churn's time slice must be longer than 0 s")
            st = Statement(**{**st.__dict__, "churn": churn, "churn_per": per})
        if self.peek() is not None:
            raise self.error(f"unexpected {self.peek()} after the statement")
        return st

    def action(self, t1: float, t2: float | None) -> Statement:
        base = {"line": self.lineno, "t1": t1, "t2": t2}
        t = self.peek()
        if t is None:
            raise self.error("expected an action: join, leave, const, set, stop, partition, heal, loss or latency")
        w = t.text.lower() if t.kind == "word" else ""
        if w in JOIN_WORDS or w in LEAVE_WORDS:
            self.take()
            q = self.quantity("the number of nodes")
            graceful = False
            if self.word("gracefully", "graceful"):
                g = self.take()
                if w in JOIN_WORDS:
                    raise self.error("only a leave can be graceful", g)
                graceful = True
            return Statement(**base, action="join" if w in JOIN_WORDS else "leave", quantity=q, graceful=graceful)
        if w in ("const", "keep"):
            self.take()
            return Statement(**base, action="const")
        if w in ("stop", "end"):
            self.take()
            return Statement(**base, action="stop")
        if w == "set":
            self.take()
            if self.word("maximum", "max"):
                self.take()
                self.expect_word("'population' after 'maximum'", "population", "pop")
                if self.word("to"):
                    self.take()
                return Statement(**base, action="set_max", quantity=self.quantity("the maximum population",
                                                                                     absolute_only=True))
            if self.word("replacement"):
                self.take()
                self.expect_word("'ratio' after 'replacement'", "ratio")
            elif self.word("repratio", "rep.ratio"):
                self.take()
            else:
                raise self.error("expected 'maximum population' or 'replacement ratio' after 'set'")
            if self.word("to"):
                self.take()
            start = self.peek()
            q = self.quantity("the replacement ratio", relative_only=True)
            if q.value > 100:
                raise self.error(f"the replacement ratio is at most 100% ({_num(q.value)}%)", start)
            return Statement(**base, action="set_ratio", quantity=q)
        if w == "partition":
            self.take()
            groups: list[float] = []
            while self.peek() is not None and not self.word("churn"):
                q = self.quantity("a group's share", relative_only=True)
                groups.append(q.value / 100)
                if self.peek() is not None and self.peek().kind == ",":
                    self.take()
            if not groups:
                raise self.error("expected the groups' shares: 'partition 50%' or 'partition 20% 30% 50%'")
            if sum(groups) > 1 + 1e-9 or any(g <= 0 for g in groups):
                raise ChurnError(self.lineno, t.col, "a partition's groups are shares above 0% adding up to "
                                 f"at most 100% (here {_num(sum(groups) * 100)}%)")
            if sum(groups) < 1 - 1e-9:
                groups.append(1 - sum(groups))  # the rest of the nodes form the last group
            return Statement(**base, action="partition", groups=tuple(round(g, 6) for g in groups))
        if w == "heal":
            self.take()
            return Statement(**base, action="heal")
        if w == "loss":
            self.take()
            if self.word("default"):
                self.take()
                return Statement(**base, action="loss", factor=None)
            start = self.peek()
            q = self.quantity("the loss rate", relative_only=True)
            if q.value >= 100:
                raise self.error(f"the loss rate is below 100% ({_num(q.value)}%)", start)
            return Statement(**base, action="loss", factor=round(q.value / 100, 6))
        if w == "latency":
            self.take()
            start = self.peek()
            if self.word("x") or (self.peek() is not None and self.peek().kind == "*"):
                self.take()
                q = self.quantity("the latency factor", absolute_only=True)
                factor = q.value
            else:
                factor = self.quantity("the latency scale (x2 or 200%)", relative_only=True).value / 100
            if factor <= 0:
                raise self.error("the latency scale must be above 0", start)
            return Statement(**base, action="latency", factor=round(factor, 6))
        raise self.error("expected an action: join, leave, const, set, stop, partition, heal, loss or latency"
                         + (f", found {t}" if t else ""))


def parse_script(text: str) -> list[Statement]:
    """Every statement of a script; the first problem raises ChurnError (use script_errors to
    collect all of them)."""
    statements, errors = _parse(text)
    if errors:
        raise errors[0]
    return statements


def script_errors(text: str) -> list[ChurnError]:
    """Every problem of a script, one per bad line (the editor marks them all)."""
    return _parse(text)[1]


def _parse(text: str) -> tuple[list[Statement], list[ChurnError]]:
    statements: list[Statement] = []
    errors: list[ChurnError] = []
    try:
        lines = _lines_without_comments(text)
    except ChurnError as e:
        return [], [e]
    for lineno, line in enumerate(lines, 1):
        try:
            toks = _tokens(line, lineno)
            if toks:
                statements.append(_Parser(toks, lineno, len(line.rstrip())).statement())
        except ChurnError as e:
            errors.append(e)
    return statements, errors


# ---------------------------------------------------------------------------------------------
# Traces

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
        raise _too_many(lineno, "the trace has", nodes, MAX_NODES, "nodes")
    if events > MAX_EVENTS:
        raise _too_many(lineno, "the trace has", events, MAX_EVENTS, "events")


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


# ---------------------------------------------------------------------------------------------
# Schedule: statements → events of numbered nodes

@dataclass(frozen=True)
class Event:
    t: float
    kind: str  # join, leave; and the settings/network ones: set_max set_ratio partition heal loss latency
    node: int = 0  # joins and leaves: the node (1..), others 0
    graceful: bool = False
    line: int = 0
    value: float | tuple[float, ...] | None = None  # set_max, set_ratio (0..1), partition groups, loss, latency

    def text(self) -> str:
        at = f"at {_num(self.t)}s"
        if self.kind == "set_max":
            return f"{at} set maximum population to {_num(self.value)}"
        if self.kind == "set_ratio":
            return f"{at} set replacement ratio to {_num(self.value * 100)}%"
        if self.kind == "partition":
            return f"{at} partition " + " ".join(f"{_num(g * 100)}%" for g in self.value)
        if self.kind == "heal":
            return f"{at} heal"
        if self.kind == "loss":
            return f"{at} loss " + ("default" if self.value is None else f"{_num(self.value * 100)}%")
        if self.kind == "latency":
            return f"{at} latency x{_num(self.value)}"
        raise ValueError(self.kind)


@dataclass
class Schedule:
    events: list[Event]  # in time order; joins and leaves carry their node
    end: float | None  # `stop`: the instant everything stops; None: after the last event
    warnings: list[tuple[int, str]] = field(default_factory=list)  # (line, what was skipped and why)

    @property
    def nodes(self) -> int:
        """How many distinct nodes the scenario uses (instances a job needs)."""
        return max((e.node for e in self.events), default=0)

    @property
    def duration(self) -> float:
        return self.end if self.end is not None else max((e.t for e in self.events), default=0.0)

    def scheduled_text(self) -> str:
        """The scheduled form: one instant statement per line, in time order, re-parsable.
        Consecutive joins (or leaves) at one instant are one line; the comment says the population."""
        out: list[str] = []
        pop = 0
        i = 0
        ev = self.events
        while i < len(ev):
            e = ev[i]
            if e.kind in ("join", "leave"):
                j = i
                while j < len(ev) and ev[j].t == e.t and ev[j].kind == e.kind and ev[j].graceful == e.graceful:
                    j += 1
                n = j - i
                pop += n if e.kind == "join" else -n
                out.append(f"at {_num(e.t)}s {e.kind} {n}{' gracefully' if e.graceful else ''}  # population {pop}")
                i = j
            else:
                out.append(e.text())
                i += 1
        if self.end is not None:
            out.append(f"at {_num(self.end)}s stop")
        return "\n".join(out) + "\n"

    def trace(self) -> list[Intervals]:
        """Each node's sessions (SPLAY's trace)."""
        sessions: dict[int, Intervals] = {}
        for e in self.events:
            if e.kind == "join":
                sessions.setdefault(e.node, []).append((e.t, None))
            elif e.kind == "leave":
                up, _ = sessions[e.node][-1]
                sessions[e.node][-1] = (up, e.t)
        if self.end is not None:
            for iv in sessions.values():
                if iv and iv[-1][1] is None:
                    iv[-1] = (iv[-1][0], self.end)
        return [sessions.get(n, []) for n in range(1, self.nodes + 1)]


class _PlannedPopulation:
    """The population planned so far, read at the statements' own instants (their starts and
    ends, where relative quantities and churn look): a Fenwick tree over those instants, so a
    long script costs O(log n) per event rather than a scan of every event per statement."""

    def __init__(self, instants: Iterable[float]) -> None:
        self.instants = sorted(set(instants))
        self.tree = [0] * (len(self.instants) + 1)
        self.pending: list[tuple[float, int]] = []  # added since the last read

    def add(self, t: float, delta: int) -> None:
        self.pending.append((t, delta))

    def at(self, t: float) -> int:
        """Joins minus leaves planned at or before `t` (one of the instants), at least 0."""
        for when, delta in self.pending:  # counts for every instant at or after `when`
            i = bisect.bisect_left(self.instants, when) + 1
            while i < len(self.tree):
                self.tree[i] += delta
                i += i & -i
        self.pending.clear()
        total, i = 0, bisect.bisect_right(self.instants, t)
        while i > 0:
            total += self.tree[i]
            i -= i & -i
        return max(0, total)


def _too_many(line: int, what: str, count: int, limit: int, kind: str, hint: str = "") -> ChurnError:
    return ChurnError(line, 0, f"{what} {count:,} {kind}: a scenario holds at most {limit:,} {kind.split()[-1]}"
                               + (f" ({hint})" if hint else ""))


def schedule(statements: Iterable[Statement], seed: int = 1) -> Schedule:
    """Turn statements into events of numbered nodes (docs/churn.md, "Scheduling").

    Pass 1 places the joins and leaves in time (periods spread them evenly; additional churn at
    random instants; percentages of the population planned so far at that time). Pass 2 replays
    them in time order and picks the nodes: a join revives a node that left with probability
    1 - replacement ratio, else starts a fresh one; a leave takes a random node that is up; a
    join above the maximum population and a leave with nobody up are skipped (a warning)."""
    times = random.Random(f"{seed}:times")
    picks = random.Random(f"{seed}:nodes")
    sts = sorted(statements, key=lambda s: (s.t1, s.line))
    stop = next((s.t1 for s in sts if s.action == "stop"), None)
    warnings: list[tuple[int, str]] = []
    # planned (t, +1/-1), read by relative quantities and churn at statements' starts and ends
    population = _PlannedPopulation([s.t1 for s in sts] + [min(s.t2, stop) if stop is not None else s.t2
                                                           for s in sts if s.t2 is not None])
    planned: list[tuple[float, int, str, bool, int, object]] = []  # (t, order, kind, graceful, line, value)

    def plan(t: float, kind: str, graceful: bool = False, line: int = 0, value: object = None) -> None:
        if stop is not None and t > stop:
            return
        order = {"set_max": 0, "set_ratio": 0, "partition": 1, "heal": 1, "loss": 1, "latency": 1,
                 "leave": 2, "join": 3}[kind]
        planned.append((round(t, 3), order, kind, graceful, line, value))
        if kind in ("join", "leave"):
            population.add(round(t, 3), 1 if kind == "join" else -1)

    def room_for(line: int, count: int) -> None:
        """Refuse a statement whose `count` more events would pass MAX_EVENTS, before making them."""
        if len(planned) + count > MAX_EVENTS:
            raise ChurnError(line, 0, f"this line adds {count:,} events to {len(planned):,}: "
                                      f"a scenario holds at most {MAX_EVENTS:,} events (joins, leaves "
                                      "and network changes)")

    loss_now: float | None = None
    latency_now = 1.0
    for s in sts:
        if stop is not None and s.t1 > stop:
            warnings.append((s.line, f"after 'stop' at {_num(stop)} s: ignored"))
            continue
        t2 = min(s.t2, stop) if s.t2 is not None and stop is not None else s.t2
        if s.action not in ("join", "leave"):
            room_for(s.line, 2)  # a setting or network change, and its period's end
        if s.action in ("join", "leave"):
            q = s.quantity
            n = q.value * population.at(s.t1) / 100 if q.relative else q.value
            n = int(math.floor(n + 1e-9)) if math.isfinite(n) else MAX_NODES + 1
            if n > MAX_NODES:
                raise _too_many(s.line, f"{'join' if s.action == 'join' else 'leave'} of", n, MAX_NODES, "nodes")
            room_for(s.line, n)
            for k in range(1, n + 1):
                t = s.t1 if t2 is None else s.t1 + (s.t2 - s.t1) * k / n
                plan(t, s.action, s.graceful, s.line)
        elif s.action == "set_max":
            plan(s.t1, "set_max", line=s.line, value=s.quantity.value)
        elif s.action == "set_ratio":
            plan(s.t1, "set_ratio", line=s.line, value=s.quantity.value / 100)
        elif s.action == "partition":
            plan(s.t1, "partition", line=s.line, value=s.groups)
            if t2 is not None:
                plan(t2, "heal", line=s.line)
        elif s.action == "heal":
            plan(s.t1, "heal", line=s.line)
        elif s.action in ("loss", "latency"):
            before = loss_now if s.action == "loss" else latency_now
            plan(s.t1, s.action, line=s.line, value=s.factor)
            if t2 is not None:
                plan(t2, s.action, line=s.line, value=before)
            elif s.action == "loss":
                loss_now = s.factor
            else:
                latency_now = s.factor
        if s.churn is not None and t2 is not None:
            mean = (population.at(s.t1) + population.at(t2)) / 2
            size = s.churn.value * mean / 100 if s.churn.relative else s.churn.value
            if s.churn_per:
                size *= (t2 - s.t1) / s.churn_per
            pairs = int(round(size)) if math.isfinite(size) else 10**18
            room_for(s.line, 2 * pairs)
            for _ in range(pairs):
                plan(times.uniform(s.t1, t2), "leave", False, s.line)
                plan(times.uniform(s.t1, t2), "join", False, s.line)

    planned.sort(key=lambda p: (p[0], p[1]))
    events: list[Event] = []
    up: list[int] = []
    gone: list[int] = []
    fresh = 0
    ratio, cap = 1.0, math.inf
    skipped: Counter[tuple[int, str]] = Counter()
    for t, _, kind, graceful, line, value in planned:
        if kind == "set_max":
            cap = value
        elif kind == "set_ratio":
            ratio = value
        if kind == "join":
            if len(up) >= cap:
                skipped[(line, f"maximum population {_num(cap)} reached")] += 1
                continue
            if gone and picks.random() >= ratio:
                node = gone.pop(picks.randrange(len(gone)))
            else:
                fresh += 1
                node = fresh
                if fresh > MAX_NODES:
                    raise _too_many(line, "the scenario reaches", fresh, MAX_NODES, "distinct nodes",
                                    "each join starts a fresh node unless 'set replacement ratio' revives some")
            up.append(node)
            events.append(Event(t, "join", node, line=line))
        elif kind == "leave":
            if not up:
                skipped[(line, "nobody was up")] += 1
                continue
            node = up.pop(picks.randrange(len(up)))
            gone.append(node)
            events.append(Event(t, "leave", node, graceful, line))
        else:
            events.append(Event(t, kind, line=line, value=value))
    for (line, why), n in sorted(skipped.items()):
        what = "join" if why.startswith("maximum") else "leave"
        warnings.append((line, f"{n} {what}{'s' if n > 1 else ''} skipped: {why}"))
    warnings.sort()
    return Schedule(events=events, end=stop, warnings=warnings)


def schedule_from_trace(nodes: list[Intervals]) -> Schedule:
    """A trace's events: node k of the schedule is line k of the trace."""
    raw: list[tuple[float, int, int]] = []
    for k, iv in enumerate(nodes, 1):
        for u, d in iv:
            raw.append((u, 1, k))
            if d is not None:
                raw.append((d, 0, k))
    raw.sort()
    return Schedule(events=[Event(t, "join" if j else "leave", k) for t, j, k in raw], end=None)


def load_kind(text: str) -> str:
    """"fta" (rows of 8+ columns whose 6th is an event type), "trace" (numbers only) or "script"."""
    rows = [r for r in (ln.split("#", 1)[0].split() for ln in text.split("\n")) if r]
    if rows and all(len(r) >= 8 and r[5].lower() in FTA_KINDS for r in rows):
        return "fta"
    if rows and all(re.fullmatch(r"[0-9.]+", c) for r in rows for c in r):
        return "trace"
    return "script"


def load(text: str, seed: int = 1) -> Schedule:
    """A script, a SPLAY trace or an FTA event_trace, told apart by their content (load_kind)."""
    kind = load_kind(text)
    if kind == "fta":
        return schedule_from_trace(parse_fta(text))
    if kind == "trace":
        return schedule_from_trace(parse_trace(text))
    return schedule(parse_script(text), seed=seed)


FTA_KINDS = frozenset({"0", "1", "availability", "unavailability", "up", "down", "available", "unavailable"})


def network_overlay(plan: Schedule, n: int, seed: int = 1) -> dict[str, list[dict]]:
    """The scenario's network events as additions to every node's `net` block (netmodel.py,
    netem.lua): `partitions` [{at, until, groups}] and `phases` [{at, loss, latency}].
    A partition's groups are its shares of the n nodes, placed by a seeded shuffle (groups
    mix early and late joiners)."""
    rng = random.Random(f"{seed}:partition")
    partitions: list[dict] = []
    phases: list[dict] = []
    loss: float | None = None
    latency = 1.0
    for e in plan.events:
        if e.kind == "partition":
            if partitions and partitions[-1]["until"] is None:
                partitions[-1]["until"] = e.t
            order = list(range(n))
            rng.shuffle(order)
            groups = [0] * n
            start = 0
            for g, share in enumerate(e.value):
                count = n - start if g == len(e.value) - 1 else round(share * n)
                for idx in order[start:start + count]:
                    groups[idx] = g
                start += count
            partitions.append({"at": e.t, "until": None, "groups": groups})
        elif e.kind == "heal" and partitions and partitions[-1]["until"] is None:
            partitions[-1]["until"] = e.t
        elif e.kind in ("loss", "latency"):
            if e.kind == "loss":
                loss = e.value
            else:
                latency = e.value
            phase = {"at": e.t, "latency": latency}
            if loss is not None:
                phase["loss"] = loss
            if phases and phases[-1]["at"] == e.t:
                phases[-1] = phase
            else:
                phases.append(phase)
    if plan.end is not None and partitions and partitions[-1]["until"] is None:
        partitions[-1]["until"] = plan.end
    return {"partitions": partitions, "phases": phases}


def population_steps(events: Iterable[Event]) -> list[tuple[float, int]]:
    """(t, population after the events at t), one point per instant with joins or leaves."""
    out: list[tuple[float, int]] = []
    pop = 0
    for e in events:
        if e.kind not in ("join", "leave"):
            continue
        pop += 1 if e.kind == "join" else -1
        if out and out[-1][0] == e.t:
            out[-1] = (e.t, pop)
        else:
            out.append((e.t, pop))
    return out


def per_bin(events: Iterable[Event], width: float) -> list[tuple[float, int, int]]:
    """(bin start, joins, leaves) per bin of `width` seconds (the lower panel of figure 4)."""
    counts: dict[int, list[int]] = {}
    for e in events:
        if e.kind in ("join", "leave"):
            c = counts.setdefault(int(e.t // width), [0, 0])
            c[0 if e.kind == "join" else 1] += 1
    if not counts:
        return []
    return [(k * width, *counts.get(k, [0, 0])) for k in range(0, max(counts) + 1)]
