"""SPLAY's synthetic churn language (docs/churn.md, "The language"): lexer and recursive-descent
parser, one statement per line; every bad line is a ChurnError naming line and column."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .limits import MAX_SECONDS, ChurnError, _num

UNITS = {"s": 1, "sec": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "minute": 60, "minutes": 60,
         "h": 3600, "hour": 3600, "hours": 3600, "d": 86400, "day": 86400, "days": 86400}
JOIN_WORDS = {"join", "add", "increase", "inc"}
LEAVE_WORDS = {"leave", "remove", "decrease", "dec"}
INSTANT_ONLY = {"set_max", "set_ratio", "stop", "heal"}


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
