"""Churn scenarios (a package: limits, language, traces, schedule): SPLAY's synthetic churn language, SPLAY and FTA traces, and the schedule
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

from .language import (INSTANT_ONLY, JOIN_WORDS, LEAVE_WORDS, UNITS, Quantity, Statement, Token, parse_script,
                       script_errors)
from .limits import MAX_EVENTS, MAX_NODES, MAX_SECONDS, ChurnError
from .schedule import (Event, Schedule, load, load_kind, network_overlay, per_bin, population_steps, schedule,
                       schedule_from_trace)
from .traces import (FTA_KINDS, Intervals, derive_trace, parse_fta, parse_trace, trace_amplitude, trace_speedup,
                     trace_text, trace_truncate)

__all__ = ["ChurnError", "Event", "FTA_KINDS", "INSTANT_ONLY", "Intervals", "JOIN_WORDS", "LEAVE_WORDS",
           "MAX_EVENTS", "MAX_NODES", "MAX_SECONDS", "Quantity", "Schedule", "Statement", "Token", "UNITS",
           "derive_trace", "load", "load_kind", "network_overlay", "parse_fta", "parse_script", "parse_trace",
           "per_bin", "population_steps", "schedule", "schedule_from_trace", "script_errors", "trace_amplitude",
           "trace_speedup", "trace_text", "trace_truncate"]
