"""The output limits of a job's nodes: one definition for the daemon, the local runner
(sandbox/run_local.py), the simulator (sandbox/simulate.py hands `sim_block()` to sim.lua, which
applies the same rule on virtual time) and the grader (which runs the local runner).
Standard library only: the sandbox imports it from the repository's daemon/ folder.

Two limits (docs/architecture.md, "Output limits"; docs/decisions.md, "Output limits"):
- **rate**: at most `lines_per_second` lines per node in a window of WINDOW_S seconds that
  opens at the first line after the previous one closed; the window's further lines are
  dropped and replaced by one warning record "log rate limit: N lines dropped", sent when the
  window closes (the daemon's 0.1 s tick, the runner's loop, a simulator event at the window's
  end), at the node's next line, or when its output ends, whichever comes first.
- **budget**: at most `max_size` bytes of output per job, all its nodes together (on a
  daemon: the job's nodes on that daemon). A line costs its bytes as the node wrote them
  (level, tab, text; cut at 4096) plus its newline. The line that would pass the budget is
  dropped, one warning record "log budget: job output limit of 50 MB reached, further output
  dropped" is sent (by the node that wrote it), and every later line of the job is dropped
  silently. The job keeps running: its nodes, exits and measurements are unaffected.
Measurement records (`probe`, `trace`: bounded by the runtime, docs/trace.md) are neither
counted nor dropped by either limit, so an app printing without end cannot erase its trace.
The limit records themselves are not counted either (at most one per node per second, one
per job).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .records import MAX_LINE_BYTES, TRUNCATED_MARK

MB = 1024 * 1024
LINES_PER_SECOND = 1000   # per node: the daemon's `log_lines_per_second` default and ceiling
MAX_SIZE = 50 * MB        # per job: the daemon's `log_max_size_mb` default and ceiling
WINDOW_S = 1.0
MEASUREMENT_LEVELS = frozenset({"probe", "trace"})
RATE, BUDGET = "rate", "budget"   # which limit a record reports (the JSONL's `limit` field)


def fmt_size(n: int) -> str:
    """Bytes in the student's words: 64 MB, 19.1 MB, 512 KB, 100 bytes."""
    if n >= MB:
        return f"{n // MB} MB" if n % MB == 0 else f"{n / MB:.1f} MB"
    if n >= 1024:
        return f"{n // 1024} KB" if n % 1024 == 0 else f"{n / 1024:.1f} KB"
    return f"{n} bytes"


def rate_text(dropped: int) -> str:
    return f"log rate limit: {dropped} line{'s' if dropped != 1 else ''} dropped"


def budget_text(max_size: int) -> str:
    return f"log budget: job output limit of {fmt_size(max_size)} reached, further output dropped"


def line_cost(line_bytes: int) -> int:
    """What one line costs against the budget: its bytes and its newline."""
    return line_bytes + 1


@dataclass(frozen=True)
class OutputLimits:
    lines_per_second: int = LINES_PER_SECOND
    max_size: int = MAX_SIZE

    def sim_block(self) -> dict[str, object]:
        """sim.json's "output": the same numbers and words for sim.lua (one definition)."""
        return {"lines_per_second": self.lines_per_second, "max_size": self.max_size, "window": WINDOW_S,
                "rate_one": rate_text(1), "rate_many": rate_text(2).replace("2", "%d", 1),
                "budget_text": budget_text(self.max_size), "max_line": MAX_LINE_BYTES,
                "truncated_mark": TRUNCATED_MARK}


class LimitError(ValueError):
    """A limit asked above what this run or daemon allows, or not a number."""


def parse_size(text: str) -> int:
    """'50MB', '512KB', '1048576' (bytes) -> bytes; LimitError naming the problem."""
    units = {"gb": 1024 * MB, "mb": MB, "kb": 1024, "b": 1, "": 1}
    s = str(text).strip().lower().replace(" ", "")
    digits = s.rstrip("abcdefghijklmnopqrstuvwxyz")
    unit = s[len(digits):]
    try:
        value = float(digits)
    except ValueError:
        raise LimitError(f"expected a size such as 50MB, 512KB or 1048576 (bytes), got {text!r}") from None
    if unit not in units or value < 0:
        raise LimitError(f"expected a size such as 50MB, 512KB or 1048576 (bytes), got {text!r}")
    return int(value * units[unit])


def refusal(key: str, asked: int, ceiling: int, where: str) -> str:
    """Why a job asking `asked` for `key` (log_lines_per_second, log_max_size) above the
    ceiling is refused, code first (as the daemon's other limits)."""
    if key == "log_lines_per_second":
        return f"INVALID_LOG: asked {asked} log lines per second per node, {where} allows {ceiling}"
    return f"INVALID_LOG: asked log_max_size = {fmt_size(asked)} per job, {where} allows {fmt_size(ceiling)}"


def within(ceiling: OutputLimits, lines_per_second: int | None, max_size: int | None,
           where: str = "this run") -> OutputLimits:
    """A job's asked limits (None: not asked, the ceiling) within a ceiling, else LimitError
    in the words of the daemon's refusal."""
    rate = ceiling.lines_per_second if lines_per_second is None else lines_per_second
    size = ceiling.max_size if max_size is None else max_size
    if rate < 1:
        raise LimitError(f"log_lines_per_second: expected an integer >= 1, got {rate}")
    if size < 0:
        raise LimitError(f"log_max_size: expected an integer >= 0, got {size}")
    if rate > ceiling.lines_per_second:
        raise LimitError(refusal("log_lines_per_second", rate, ceiling.lines_per_second, where))
    if size > ceiling.max_size:
        raise LimitError(refusal("log_max_size", size, ceiling.max_size, where))
    return OutputLimits(rate, size)


# A share of a job's budget goes in runtime "log_max_size", the whole in this key (jobspec.py).
JOB_BUDGET_KEY = "log_max_size_of_job"


class JobBudget:
    """The bytes a job's output may still take, shared by its nodes."""

    def __init__(self, max_size: int | None, job_max_size: int | None = None) -> None:
        self.max_size = max_size
        # what the record names: the job's whole budget when this daemon holds a share of it
        self.shown = job_max_size if job_max_size is not None else max_size
        self.used = 0
        self.spent = False
        self.dropped = 0   # lines dropped since it was spent (not reported line by line)

    def take(self, cost: int) -> bool:
        """True: the line fits and is counted. False: it does not; `spent` tells whether it
        was this line that spent the budget (then the caller reports it)."""
        if self.max_size is None:
            return True
        if self.used + cost > self.max_size:
            self.spent = True
            return False
        self.used += cost
        return True


# send(level, text, limit, dropped): a limit record for the node (limit RATE or BUDGET).
Send = Callable[[str, str, str, int], None]


class NodeLimiter:
    """One node's output through the rate limit and its job's budget.

    admit(level, cost, now) says whether a line passes and sends the limit records that are
    due; tick(now) sends a closed window's record; close() the pending one when the output ends.
    """

    def __init__(self, lines_per_second: int | None, budget: JobBudget, send: Send) -> None:
        self.rate = lines_per_second
        self.budget = budget
        self.send = send
        self.window_start = float("-inf")
        self.window_lines = 0
        self.dropped = 0   # lines dropped by the rate in the current window, not yet reported

    def admit(self, level: str, cost: int, now: float) -> bool:
        if level in MEASUREMENT_LEVELS:
            return True
        if self.budget.spent:
            self.budget.dropped += 1
            return False
        if self.rate:
            if now - self.window_start >= WINDOW_S:
                self.close()
                self.window_start, self.window_lines = now, 0
            self.window_lines += 1
            if self.window_lines > self.rate:
                self.dropped += 1
                return False
        if not self.budget.take(cost):
            self.budget.dropped += 1
            assert self.budget.shown is not None
            self.send("warning", budget_text(self.budget.shown), BUDGET, 0)
            return False
        return True

    def tick(self, now: float) -> None:
        """Report the lines the rate dropped once their window is over."""
        if self.dropped and now - self.window_start >= WINDOW_S:
            self.close()

    def close(self) -> None:
        """Report the lines the rate dropped in the current window (the output ends, or a new
        window opens)."""
        if self.dropped:
            n, self.dropped = self.dropped, 0
            self.send("warning", rate_text(n), RATE, n)
