"""SPLAY's resource descriptor: the comment block an application declares its needs in.

Model-free. `descriptor_parse(code, filename)` finds

    BEGIN SPLAY RESOURCES RESERVATION      (the original spelling RESSOURCES works too)
    nb_splayds 10
    list_type random
    ...
    END SPLAY RESOURCES RESERVATION

anywhere in the source (usually inside a --[[ ]] comment; a leading `--` on each line is
allowed), and returns a `Descriptor` (or None when there is no block). Every problem is
collected and raised at once as `DescriptorError`, each naming the line and the key, e.g.
``app.lua:4: descriptor: unknown key 'nb_splayd' (did you mean 'nb_splayds'?)``.

Keys are SPLAY's (../shared/reference/splay-api.md, "The resource descriptor"). The ones
SplayLab enforces are listed in ENFORCED; the others are accepted (validated, then ignored:
SPLAY programs carry them) and listed in ACCEPTED with the reason.
"""
from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

BEGIN_RE = re.compile(r"^\s*(?:--+)?\s*BEGIN\s+SPLAY\s+RES?SOURCES\s+RESERVATION\s*$")
END_RE = re.compile(r"^\s*(?:--+)?\s*END\s+SPLAY\s+RES?SOURCES\s+RESERVATION\s*$")
COMMENT_PREFIX_RE = re.compile(r"^\s*--+")
# A line inside the block may also open/close the Lua comment around it: --[[ or ]] or --]].
BRACKET_ONLY_RE = re.compile(r"^\s*(--)?\s*(\[=*\[|\]=*\])\s*$")

MAX_NODES = 10_000   # a simulated job's limit; job_create holds live jobs to their own (1,000)
MAX_TIME = 3600
MB = 1024**2
GB = 1024**3


class DescriptorError(Exception):
    """One or more bad lines in the descriptor; `errors` are (line, key, message) texts."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors
        first = re.match(r"^[^:]*:(\d+):", errors[0]) if errors else None
        self.line: int | None = int(first.group(1)) if first else None


def _int(lo: int, hi: int | None = None, unit: str = "") -> Callable[[str], Any]:
    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise ValueError(f"expected an integer{unit}, got {text!r}") from None
        if value < lo or (hi is not None and value > hi):
            rng = f"between {lo} and {hi}" if hi is not None else f">= {lo}"
            raise ValueError(f"expected an integer {rng}{unit}, got {value}")
        return value
    return parse


def _float(lo: float, hi: float) -> Callable[[str], Any]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value) or not lo <= value <= hi:
            raise ValueError(f"expected a number between {lo:g} and {hi:g}, got {text}")
        return value
    return parse


def _choice(*choices: str) -> Callable[[str], Any]:
    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, got {text!r}")
        return text
    return parse


def _text(text: str) -> str:
    return text


LABEL_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def _labels(text: str) -> dict[str, list[str]]:
    """`room=B12,owner=classroom|volunteer` (commas or spaces between pairs; `|` between the
    values a label may have) -> {"room": ["B12"], "owner": ["classroom", "volunteer"]}."""
    out: dict[str, list[str]] = {}
    for pair in re.split(r"[,\s]+", text.strip()):
        if not pair:
            continue
        name, eq, values = pair.partition("=")
        if not eq or not name:
            raise ValueError(f"expected label=value pairs such as room=B12,owner=volunteer, got {pair!r}")
        if not LABEL_RE.match(name):
            raise ValueError(f"bad label name {name!r} (letters, digits, _ . - only)")
        if name in out:
            raise ValueError(f"label {name!r} is given twice (use {name}=a|b for either value)")
        choices = values.split("|")
        bad = next((v for v in choices if not LABEL_RE.match(v)), None)
        if bad is not None:
            raise ValueError(f"bad value {bad!r} for label {name!r} (letters, digits, _ . - only)")
        out[name] = choices
    if not out:
        raise ValueError("expected at least one label=value pair")
    return out


def _net(check: Callable[[str], Any]) -> Callable[[str], Any]:
    """A SplayLab network key: checked by sandbox/netmodel.py, stored as written."""
    def parse(text: str) -> str:
        from lib.network import NetModelError  # imports sandbox/netmodel.py

        try:
            check(text)
        except NetModelError as e:
            raise ValueError(str(e)) from None
        return text
    return parse


def _net_model(text: str) -> None:
    from lib.network import netmodel

    if text.split(":", 1)[0] in ("matrix", "trace"):
        raise netmodel.NetModelError(f"{text.split(':', 1)[0]} models need an uploaded file: choose them in the "
                                     "run bar's Network menu or with ./splaylab submit --net")
    netmodel.parse_net(text)


def _net_loss(text: str) -> None:
    from lib.network import netmodel
    netmodel.parse_loss(text)


def _net_partition(text: str) -> None:
    from lib.network import netmodel
    netmodel.parse_partition(text)


# The message trace (docs/trace.md): off by default; on, each node lists its first max_events
# rows. The same bounds as splayd's (daemon/splayd/jobspec.py trace_block).
TRACE_DEFAULT_EVENTS = 20_000
TRACE_MAX_EVENTS = 1_000_000
TRACE_EXPECTED = 'true, false or {"max_events": N}'


def trace_clean(value: Any) -> dict[str, int] | None:
    """The job's `trace` option (descriptor key or request field) → {"max_events": N}, or
    None for no trace. true or {} is the default listing; ValueError says what is wrong."""
    if value is None or value is False:
        return None
    if value is True:
        return {"max_events": TRACE_DEFAULT_EVENTS}
    if not isinstance(value, dict):
        raise ValueError(f"expected {TRACE_EXPECTED}, got {json.dumps(value)}")
    unknown = sorted(set(value) - {"max_events"})
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r} (known: max_events)")
    n = value.get("max_events", TRACE_DEFAULT_EVENTS)
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= TRACE_MAX_EVENTS:
        raise ValueError(f"max_events: expected an integer between 1 and {TRACE_MAX_EVENTS:,}, "
                         f"got {json.dumps(n)}")
    return {"max_events": n}


def _trace(text: str) -> dict[str, int] | bool:
    """`trace true`, `trace false` or `trace {"max_events": 5000}`; stored as False or the
    cleaned object."""
    word = text.lower()
    if word in ("true", "yes", "on", "1"):
        value: Any = True
    elif word in ("false", "no", "off", "0"):
        value = False
    elif text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            raise ValueError(f"expected {TRACE_EXPECTED}, got {text!r} (not valid JSON)") from None
    else:
        raise ValueError(f"expected {TRACE_EXPECTED}, got {text!r}")
    return trace_clean(value) or False


# Enforced by SplayLab: key -> parser.
ENFORCED: dict[str, Callable[[str], Any]] = {
    "nb_splayds": _int(1, MAX_NODES),
    "list_type": _choice("head", "random"),
    "list_size": _int(0, MAX_NODES),
    "max_mem": _int(16 * MB, 64 * GB, " (bytes)"),  # LuaJIT needs ~10 MB of address space
    "max_time": _int(1, MAX_TIME, " (seconds)"),
    "disk_max_size": _int(0, 64 * GB, " (bytes)"),
    "disk_max_files": _int(1, 10**7),
    "network_max_sockets": _int(1, 10**6),
    "network_max_send": _int(0, 2**53, " (bytes)"),
    "network_max_receive": _int(0, 2**53, " (bytes)"),
    "udp_drop_ratio": _float(0.0, 1.0),
    # SPLAY's bandwidth key, bytes per second: the emulated network's per-node token bucket.
    "network_send_speed": _int(1, 2**53, " (bytes per second)"),
    # SplayLab's emulated network (docs/network.md); options given at submit replace these.
    "network_model": _net(_net_model),
    "network_loss": _net(_net_loss),
    "network_partition": _net(_net_partition),
    "network_mtu": _int(68, 65535, " (bytes)"),
    # Selection (SPLAY section 5.6): REGISTER ceil(nodes x factor) slots; the controller's
    # default is SPLAYLAB_SUPERSET.
    "factor": _float(1.0, 10.0),
    # SplayLab: only daemons whose owner-set labels match (daemon config `labels`).
    "daemon_labels": _labels,
    # SplayLab: the runtime's message trace (docs/trace.md); the request's `trace` wins.
    "trace": _trace,
    # SplayLab: the output limits (docs/architecture.md "Output limits"), lower than the
    # daemons' (or the simulator's) own: lines per second per node, bytes of output per job.
    "log_lines_per_second": _int(1, 10**6),
    "log_max_size": _int(0, 2**53, " (bytes)"),
}
# Known to SPLAY, accepted and validated, not enforced (why, for docs and the job page).
ACCEPTED: dict[str, tuple[Callable[[str], Any], str]] = {
    "disk_max_file_descriptors": (_int(1, 10**6), "the daemon's open-file limit applies"),
    "network_nb_ports": (_int(1, 65535), "one port per instance"),
    "network_receive_speed": (_int(0, 2**53), "bandwidth is shaped where it is sent (network_send_speed)"),
    "max_load": (_float(0.0, 1e6), "daemons are not selected by load"),
    "min_uptime": (_int(0, 2**53), "daemons are not selected by uptime"),
    "hostmasks": (_text, "daemons are not selected by host name"),
    "localization": (_text, "daemons are not selected by place"),
    "distance": (_text, "daemons are not selected by place"),
    "latitude": (_float(-90.0, 90.0), "daemons are not selected by place"),
    "longitude": (_float(-180.0, 180.0), "daemons are not selected by place"),
    "keep_files": (_choice("true", "false", "yes", "no", "0", "1"),
                   "working directories are always removed"),
    "scheduler": (_choice("standard", "trace"), "only the standard scheduler"),
}
KNOWN = sorted(set(ENFORCED) | set(ACCEPTED))

# Descriptor key -> the daemon's limit name (register/list "limits", job.json "limits").
LIMIT_KEYS = {
    "network_max_sockets": "max_sockets",
    "network_max_send": "max_send",
    "network_max_receive": "max_receive",
    "udp_drop_ratio": "udp_drop_ratio",
    "disk_max_size": "disk_max_size",
    "disk_max_files": "disk_max_files",
    "log_lines_per_second": "log_lines_per_second",
    "log_max_size": "log_max_size",
}


@dataclass(frozen=True)
class Descriptor:
    values: dict[str, Any] = field(default_factory=dict)  # key -> parsed value
    lines: dict[str, int] = field(default_factory=dict)  # key -> line number

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    @property
    def nb_splayds(self) -> int | None:
        return self.values.get("nb_splayds")

    @property
    def max_mem(self) -> int | None:
        return self.values.get("max_mem")

    @property
    def max_time(self) -> int | None:
        return self.values.get("max_time")

    @property
    def factor(self) -> float | None:
        return self.values.get("factor")

    @property
    def daemon_labels(self) -> dict[str, list[str]]:
        return dict(self.values.get("daemon_labels") or {})

    @property
    def trace(self) -> dict[str, int] | None:
        """{"max_events": N} when the code asks for the message trace, else None."""
        return self.values.get("trace") or None

    @property
    def list_type(self) -> str:
        return self.values.get("list_type", "head")

    @property
    def list_size(self) -> int:
        return self.values.get("list_size", 0)

    def network_options(self) -> dict[str, Any]:
        """The emulated network the code asks for, as lib.network options ({}: none)."""
        v = self.values
        options: dict[str, Any] = {}
        for key, option in (("network_model", "net"), ("network_loss", "loss"), ("network_mtu", "mtu")):
            if key in v:
                options[option] = v[key]
        if "network_send_speed" in v:
            options["bandwidth"] = f"{v['network_send_speed']}B/s"
        if "network_partition" in v:
            options["partitions"] = [v["network_partition"]]
        return options

    def limits(self) -> dict[str, Any]:
        """The daemon's "limits" object (only the keys the descriptor sets)."""
        return {LIMIT_KEYS[k]: v for k, v in self.values.items() if k in LIMIT_KEYS}


def descriptor_parse(code: str, filename: str = "app.lua") -> Descriptor | None:
    lines = code.splitlines()
    errors: list[str] = []

    def err(lineno: int, msg: str) -> None:
        errors.append(f"{filename}:{lineno}: descriptor: {msg}")

    begins = [i for i, text in enumerate(lines) if BEGIN_RE.match(text)]
    if not begins:
        if any(END_RE.match(text) for text in lines):
            lineno = next(i for i, t in enumerate(lines) if END_RE.match(t)) + 1
            raise DescriptorError([f"{filename}:{lineno}: descriptor: END without BEGIN "
                                   "SPLAY RESOURCES RESERVATION"])
        return None
    start = begins[0]
    for extra in begins[1:]:
        err(extra + 1, "a second BEGIN SPLAY RESOURCES RESERVATION (only one block is allowed)")
    end = next((i for i in range(start + 1, len(lines)) if END_RE.match(lines[i])), None)
    if end is None:
        err(start + 1, "BEGIN SPLAY RESOURCES RESERVATION without END SPLAY RESOURCES RESERVATION")
        raise DescriptorError(errors)

    values: dict[str, Any] = {}
    where: dict[str, int] = {}
    for i in range(start + 1, end):
        lineno = i + 1
        text = lines[i]
        if BRACKET_ONLY_RE.match(text):
            continue
        text = COMMENT_PREFIX_RE.sub("", text, count=1).strip()
        if not text:
            continue
        key, _, rest = text.partition(" ")
        key, rest = key.strip(), rest.strip()
        if key in ENFORCED:
            parser = ENFORCED[key]
        elif key in ACCEPTED:
            parser = ACCEPTED[key][0]
        else:
            close = difflib.get_close_matches(key, KNOWN, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f" (known keys: {', '.join(KNOWN)})"
            err(lineno, f"unknown key '{key}'{hint}")
            continue
        if key in where:
            err(lineno, f"'{key}' is given twice (first on line {where[key]})")
            continue
        if not rest:
            err(lineno, f"'{key}' needs a value")
            continue
        try:
            values[key] = parser(rest)
        except ValueError as e:
            err(lineno, f"'{key}': {e}")
            continue
        where[key] = lineno
    if errors:
        raise DescriptorError(errors)
    return Descriptor(values=values, lines=where)
