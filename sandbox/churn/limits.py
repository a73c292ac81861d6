"""What every reader of a churn scenario shares: its limits (docs/churn.md, "Limits": the same
for the service, `run --sim`, `run --churn` and `churn check`, checked from counts before any
event is made), the error naming line and column, and numbers as the messages write them."""
from __future__ import annotations

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


def too_many(line: int, what: str, count: int, limit: int, kind: str, hint: str = "") -> ChurnError:
    return ChurnError(line, 0, f"{what} {count:,} {kind}: a scenario holds at most {limit:,} {kind.split()[-1]}"
                               + (f" ({hint})" if hint else ""))


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.12g}"
