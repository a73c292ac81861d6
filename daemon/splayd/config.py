"""Daemon configuration: one TOML file → one frozen `Config`.

Every error names the file and the field, e.g. ``splayd.toml: ports: expected [lo, hi]``.
Relative paths in the file are resolved against the file's folder.
"""
from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from . import output_limits

PACKAGE_DIR = Path(__file__).resolve().parent
# The Lua runtime: an installed package carries a copy (daemon/setup.py copies sandbox/ into
# splayd/runtime/ at build time); a checkout uses the repository's sandbox/.
PACKAGED_RUNTIME = PACKAGE_DIR / "runtime"
CHECKOUT_SANDBOX = PACKAGE_DIR.parent.parent / "sandbox"
DEFAULT_SANDBOX_DIR = PACKAGED_RUNTIME if (PACKAGED_RUNTIME / "node.lua").is_file() else CHECKOUT_SANDBOX
MB = 1024 * 1024


class ConfigError(Exception):
    """The configuration file is missing, unreadable or has a bad field."""


@dataclass(frozen=True)
class Config:
    name: str
    controller: str
    key: str
    max_instances: int
    ports: tuple[int, int]
    ip: str = "127.0.0.1"
    max_mem_mb: int = 256
    max_cpu_seconds: int = 60
    max_open_files: int = 256
    max_file_size_mb: int = 16
    disk_max_size_mb: int = 64  # per instance working directory (daemon's periodic check)
    disk_max_files: int = 1000
    max_sockets: int = 64  # ceilings of the runtime's own limits (job.json "limits")
    max_send_mb: int = 1024
    max_receive_mb: int = 1024
    # the output limits (output_limits.py, shared with the local runner and the simulator):
    # ceilings a job's descriptor may lower (log_lines_per_second, log_max_size)
    log_lines_per_second: int = output_limits.LINES_PER_SECOND
    log_max_size_mb: int = output_limits.MAX_SIZE // MB  # bytes of output per job
    sandbox: str = "auto"  # auto (bwrap, else rlimits) | docker | bwrap | rlimits (isolation.py)
    bwrap: str = "bwrap"
    work_dir: Path = field(default_factory=lambda: Path("splayd-work"))
    luajit: str = "luajit"
    sandbox_dir: Path = DEFAULT_SANDBOX_DIR
    outbox_max_mb: int = 256  # logs kept on disk while the controller is unreachable
    ca_file: Path | None = None  # wss://: trust this CA (PEM) instead of the system's
    nice: int = 0  # instances' CPU share: their niceness (0-19; Docker: cpu_shares)
    max_bandwidth_kbps: int = 0  # each node's sending rate, kilobits/s (0: no cap), via netem
    labels: dict[str, str] = field(default_factory=dict)  # sent in hello (room, owner, ...)
    # The owner's availability policy (availability.py, README "Availability").
    availability: str = "always"  # always | idle | windows
    availability_check_s: float = 1.0
    evict_grace_s: float = 2.0  # SIGTERM, then SIGKILL this much later
    idle_after_s: float = 300.0  # idle: no terminal used (nor graphical session) for this long
    idle_ttys: tuple[str, ...] = ("/dev/pts", "/dev/tty[0-9]*")  # directories or glob patterns
    max_load: float = 1.0  # idle: 1-min load average minus this daemon's running instances
    run_on_battery: bool = False  # idle: false = unavailable while on battery
    power_supply_dir: Path = Path("/sys/class/power_supply")
    logind: bool = True  # idle: also ask logind (loginctl) about graphical sessions
    windows: tuple[str, ...] = ()  # windows: ["Mon-Fri 18:00-08:00", ...] local time
    # Reachability probes (reach.py): TCP listener + UDP echo; 0 = any free port
    probe_port: int = 0

    @property
    def max_mem_bytes(self) -> int:
        return self.max_mem_mb * MB

    @property
    def node_lua(self) -> Path:
        return self.sandbox_dir / "node.lua"


_REQUIRED = ("name", "controller", "key", "max_instances", "ports")
_INTS = {  # field -> minimum
    "max_instances": 1,
    "max_mem_mb": 16,
    "max_cpu_seconds": 1,
    "max_open_files": 16,
    "max_file_size_mb": 1,
    "disk_max_size_mb": 1,
    "disk_max_files": 1,
    "max_sockets": 1,
    "max_send_mb": 1,
    "max_receive_mb": 1,
    "log_lines_per_second": 1,
    "log_max_size_mb": 1,
    "outbox_max_mb": 1,
    "max_bandwidth_kbps": 0,
    "probe_port": 0,
}
_STRINGS = ("name", "controller", "key", "ip", "luajit", "sandbox", "bwrap", "availability")
_PATHS = ("work_dir", "sandbox_dir", "ca_file", "power_supply_dir")
_NUMBERS = {  # field -> (minimum, strictly above it)
    "availability_check_s": (0.0, True),
    "evict_grace_s": (0.0, False),
    "idle_after_s": (0.0, False),
    "max_load": (0.0, False),
}
_BOOLS = ("run_on_battery", "logind")
_LISTS = ("idle_ttys", "windows")  # lists of non-empty strings
_OTHER = ("nice", "labels")
_KNOWN = (set(_REQUIRED) | set(_INTS) | set(_STRINGS) | set(_PATHS) | set(_NUMBERS) | set(_BOOLS)
          | set(_LISTS) | set(_OTHER))
LABEL_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,31}")
MAX_LABELS = 32
MAX_LABEL_VALUE = 100


def load_config(path: str | Path) -> Config:
    path = Path(path)
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read config file: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    return config_from_dict(data, base_dir=path.resolve().parent, source=str(path))


def config_from_dict(data: dict[str, Any], base_dir: Path, source: str = "config") -> Config:
    def fail(field_name: str, msg: str) -> ConfigError:
        return ConfigError(f"{source}: {field_name}: {msg}")

    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise fail(unknown[0], f"unknown field (known: {', '.join(sorted(_KNOWN))})")
    for name in _REQUIRED:
        if name not in data:
            raise fail(name, "required field is missing")

    values: dict[str, Any] = {}
    for name in _STRINGS:
        if name in data:
            v = data[name]
            if not isinstance(v, str) or not v.strip():
                raise fail(name, f"expected a non-empty string, got {v!r}")
            values[name] = v
    for name, minimum in _INTS.items():
        if name in data:
            v = data[name]
            if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
                raise fail(name, f"expected an integer >= {minimum}, got {v!r}")
            values[name] = v

    for name, (minimum, strict) in _NUMBERS.items():
        if name in data:
            v = data[name]
            if (not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v)
                    or (v <= minimum if strict else v < minimum)):
                raise fail(name, f"expected a number {'>' if strict else '>='} {minimum:g}, got {v!r}")
            values[name] = float(v)
    for name in _BOOLS:
        if name in data:
            if not isinstance(data[name], bool):
                raise fail(name, f"expected true or false, got {data[name]!r}")
            values[name] = data[name]
    for name in _LISTS:
        if name in data:
            v = data[name]
            if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
                raise fail(name, f"expected a list of non-empty strings, got {v!r}")
            values[name] = tuple(v)
    if "nice" in data:
        v = data["nice"]
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 19:
            raise fail("nice", f"expected an integer from 0 to 19, got {v!r}")
        values["nice"] = v
    if "labels" in data:
        values["labels"] = _labels(data["labels"], fail)
    policy = values.get("availability", "always")
    if policy not in ("always", "idle", "windows"):
        raise fail("availability", f"expected always, idle or windows, got {policy!r}")
    if policy == "windows":
        if not values.get("windows"):
            raise fail("windows", 'required with availability = "windows" (e.g. ["Mon-Fri 18:00-08:00"])')
        from .availability import WindowError, parse_windows
        try:
            parse_windows(values["windows"])
        except WindowError as e:
            raise ConfigError(f"{source}: {e}") from None
    elif "windows" in values:
        raise fail("windows", f'only used with availability = "windows" (availability is {policy!r})')

    if values.get("sandbox", "auto") not in ("auto", "docker", "bwrap", "rlimits"):
        raise fail("sandbox", f"expected auto, docker, bwrap or rlimits, got {values['sandbox']!r}")
    if not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", values["name"]):
        raise fail("name", f"expected 1-64 letters, digits, '.', '_' or '-', got {values['name']!r}")
    url = urlparse(values["controller"])
    if url.scheme not in ("ws", "wss") or not url.netloc:
        raise fail("controller", f"expected a ws:// or wss:// URL, got {values['controller']!r}")

    ports = data["ports"]
    if (
        not isinstance(ports, list)
        or len(ports) != 2
        or not all(isinstance(p, int) and not isinstance(p, bool) for p in ports)
    ):
        raise fail("ports", f"expected [lo, hi] (two integers), got {ports!r}")
    lo, hi = ports
    if not (1024 <= lo <= hi <= 65535):
        raise fail("ports", f"expected 1024 <= lo <= hi <= 65535, got [{lo}, {hi}]")
    if hi - lo + 1 < values["max_instances"]:
        raise fail(
            "ports",
            f"range {lo}-{hi} holds {hi - lo + 1} ports, fewer than max_instances "
            f"({values['max_instances']})",
        )
    values["ports"] = (lo, hi)
    if values.get("probe_port", 0) > 65535 or lo <= values.get("probe_port", 0) <= hi:
        raise fail("probe_port", f"expected 0 (any free port) or a port up to 65535 outside ports {lo}-{hi}, "
                                 f"got {values['probe_port']}")

    for name in _PATHS:
        if name in data:
            v = data[name]
            if not isinstance(v, str) or not v:
                raise fail(name, f"expected a path string, got {v!r}")
            values[name] = (base_dir / v).resolve()
    values.setdefault("work_dir", (base_dir / f"splayd-work-{values['name']}").resolve())
    if "ca_file" in values and not values["ca_file"].is_file():
        raise fail("ca_file", f"{values['ca_file']} is not a file")
    if "ca_file" in values and url.scheme != "wss":
        raise fail("ca_file", "only used with a wss:// controller")
    sandbox_dir = values.get("sandbox_dir", DEFAULT_SANDBOX_DIR)
    if not (sandbox_dir / "node.lua").is_file():
        raise fail("sandbox_dir", f"{sandbox_dir} has no node.lua")
    return Config(**values)


def _labels(v: Any, fail: Any) -> dict[str, str]:
    """labels = {room = "B12", owner = "volunteer"}: string -> string, sent in hello."""
    if not isinstance(v, dict):
        raise fail("labels", f'expected a table of strings, e.g. {{room = "B12"}}, got {v!r}')
    if len(v) > MAX_LABELS:
        raise fail("labels", f"at most {MAX_LABELS} labels, got {len(v)}")
    out = {}
    for key, value in v.items():
        if not LABEL_KEY.fullmatch(key):
            raise fail(f"labels.{key}", "a label's name is a letter then up to 31 letters, digits, '.', '_' or '-'")
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_LABEL_VALUE:
            raise fail(f"labels.{key}", f"expected a non-empty string of at most {MAX_LABEL_VALUE} characters, "
                                        f"got {value!r}")
        out[key] = value
    return out
