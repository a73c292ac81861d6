"""The checks library (docs/grading.md, "The checks library"): every check the spec's `check:`
can name, gathered from the modules that define them, and the names assignments' own checks.py
import (Outcome, Context, owner, RunData, ...).
"""
from __future__ import annotations

from . import checks_health, checks_ring, checks_traffic  # noqa: F401  (they register their checks)
from .checks_health import failed_exits
from .checks_ring import judge_lookups, lookups_message, right_lookups, versus_reference
from .checks_traffic import broadcast_deliveries, broadcasts, delivery_latencies, operation_costs
from .library import LIBRARY, REQUIRED, CheckDef, CheckError, Context, Outcome, library_check
from .rundata import Operation, RunData, owner, percentile, stat

__all__ = ["LIBRARY", "REQUIRED", "CheckDef", "CheckError", "Context", "Operation", "Outcome", "RunData",
           "broadcast_deliveries", "broadcasts", "delivery_latencies", "failed_exits", "judge_lookups",
           "library_check", "lookups_message", "operation_costs", "owner", "percentile", "right_lookups", "stat",
           "versus_reference"]
