"""The owner's availability policy: when this daemon may run other people's code.

Config `availability` (daemon/README.md, "Availability"):
- "always": the daemon is always available (the default; no monitor runs).
- "idle": available while the owner is away: `idle_probe` (Linux) says no when
  - the machine runs on battery (unless `run_on_battery`): /sys/class/power_supply/*: a
    Mains/USB supply exists and none is `online`, or there is no such supply and a Battery's
    `status` is "Discharging";
  - an interactive terminal was used less than `idle_after_s` ago: the newest access time
    (atime, as `w` computes IDLE: a tty's atime moves when input is read, its mtime when
    output is written, so the daemon's own log lines on its terminal do not count) of the
    entries of `idle_ttys` (a directory: its entries but `ptmx`; else a glob pattern);
  - logind (`logind = true` and `loginctl` answers) has an active graphical session that is
    not idle, or idle for less than `idle_after_s` (IdleHint / IdleSinceHint, set by the
    desktop; terminals are covered by the rule above);
  - the 1-minute load average minus this daemon's running instances is above `max_load`.
- "windows": available inside one of `windows` ("Mon-Fri 18:00-08:00", local time; a window
  whose end is not after its start runs into the next day: Fri 18:00 - Sat 08:00 is in
  "Mon-Fri 18:00-08:00", Mon 07:00 is not, as it began on Sunday).

`AvailabilityMonitor` runs the probe every `availability_check_s` (server tick, the probe in
a thread) and acts when the answer changes: unavailable → JobManager.set_availability (register
is refused "UNAVAILABLE: <why>"), `{"type": "availability", "available": false, "reason"}` to
the controller (urgent), and every instance evicted (SIGTERM, SIGKILL `evict_grace_s` later,
reported LOST "evicted: <why>"); available again → `available: true`, which offers the daemon
to the controller again.
"""
from __future__ import annotations

import asyncio
import glob
import logging
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

if TYPE_CHECKING:
    from .config import Config
    from .jobs import JobManager
    from .outbox import Outbox

logger = logging.getLogger("splayd")

POLICIES = ("always", "idle", "windows")
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
GRAPHICAL = ("x11", "wayland", "mir")
LOGINCTL_TIMEOUT = 2.0


class WindowError(ValueError):
    """A malformed `windows` entry; the message says what is wrong with it."""


@dataclass(frozen=True)
class Window:
    """Days (0 = Monday) on which the window starts, and its start and end in minutes since
    midnight (end may be 1440 = 24:00; end <= start: the window ends the next day)."""
    text: str
    days: frozenset[int]
    start: int
    end: int

    @property
    def crosses_midnight(self) -> bool:
        return self.end <= self.start

    def contains(self, when: datetime) -> bool:
        day, minute = when.weekday(), when.hour * 60 + when.minute
        if not self.crosses_midnight:
            return day in self.days and self.start <= minute < self.end
        return (day in self.days and minute >= self.start) or ((day - 1) % 7 in self.days and minute < self.end)


_FULL = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _day(name: str) -> int:
    key = name.strip().lower()
    if key in DAYS:
        return DAYS.index(key)
    if key in _FULL:
        return _FULL.index(key)
    raise WindowError(f"unknown day {name.strip()!r} (expected Mon, Tue, Wed, Thu, Fri, Sat or Sun)")


def _minutes(text: str, allow_24: bool) -> int:
    m = re.fullmatch(r"(\d{1,2}):(\d{2})", text)
    if not m:
        raise WindowError(f"bad time {text!r} (expected HH:MM)")
    h, mi = int(m.group(1)), int(m.group(2))
    if h == 24 and mi == 0 and allow_24:
        return 24 * 60
    if h > 23 or mi > 59:
        raise WindowError(f"bad time {text!r} (00:00 to 23:59{', or 24:00 as an end' if allow_24 else ''})")
    return h * 60 + mi


def parse_window(text: Any) -> Window:
    """"Mon-Fri 18:00-08:00", "Sat,Sun 00:00-24:00", "Wed 12:00-14:00", "Fri-Mon 20:00-06:00"."""
    if not isinstance(text, str):
        raise WindowError(f"expected a string like \"Mon-Fri 18:00-08:00\", got {text!r}")
    parts = text.split()
    if len(parts) != 2:
        raise WindowError("expected \"DAYS HH:MM-HH:MM\" (e.g. \"Mon-Fri 18:00-08:00\")")
    days_text, hours = parts
    days: set[int] = set()
    for item in days_text.split(","):
        if "-" in item:
            a, _, b = item.partition("-")
            first, last = _day(a), _day(b)
            d = first
            while True:  # a range may wrap: Fri-Mon
                days.add(d)
                if d == last:
                    break
                d = (d + 1) % 7
        else:
            days.add(_day(item))
    start_text, sep, end_text = hours.partition("-")
    if not sep:
        raise WindowError(f"bad hours {hours!r} (expected HH:MM-HH:MM)")
    start, end = _minutes(start_text, allow_24=False), _minutes(end_text, allow_24=True)
    if start == end:
        raise WindowError(f"empty window {hours!r} (start equals end; a whole day is 00:00-24:00)")
    return Window(text=text, days=frozenset(days), start=start, end=end)


def parse_windows(entries: Iterable[Any]) -> list[Window]:
    """Every entry parsed; a bad one raises WindowError naming its index and text."""
    out = []
    for i, entry in enumerate(entries):
        try:
            out.append(parse_window(entry))
        except WindowError as e:
            raise WindowError(f"windows[{i}] {entry!r}: {e}") from None
    return out


def windows_probe(windows: list[Window], when: datetime) -> tuple[bool, str]:
    if any(w.contains(when) for w in windows):
        return True, ""
    now = f"{DAY_NAMES[when.weekday()]} {when:%H:%M}"
    return False, f"outside the availability windows ({now} is not in {', '.join(w.text for w in windows)})"


# ---- idle: the owner's activity (Linux) ------------------------------------------------------
def tty_activity(patterns: Iterable[str]) -> tuple[float, str] | None:
    """(atime, name) of the most recently used terminal among `patterns` (directories: every
    entry but ptmx; otherwise glob patterns), or None when there is none."""
    newest: tuple[float, str] | None = None
    for pattern in patterns:
        if os.path.isdir(pattern):
            try:
                paths = [os.path.join(pattern, n) for n in os.listdir(pattern) if n != "ptmx"]
            except OSError:
                continue
        else:
            paths = glob.glob(pattern)
        for path in paths:
            try:
                atime = os.stat(path).st_atime
            except OSError:
                continue
            if newest is None or atime > newest[0]:
                newest = (atime, path[5:] if path.startswith("/dev/") else path)
    return newest


def battery_state(power_dir: str | Path) -> str | None:
    """"on battery" when the machine runs on its battery, else None (on mains, no supply
    information, a desktop)."""
    root = Path(power_dir)

    def read(p: Path) -> str:
        try:
            return p.read_text().strip()
        except OSError:
            return ""

    try:
        supplies = sorted(root.iterdir())
    except OSError:
        return None
    mains: list[bool] = []
    discharging = False
    for s in supplies:
        kind = read(s / "type")
        if kind in ("Mains", "USB", "USB_C", "USB_PD", "USB_DCP", "USB_CDP", "USB_ACA"):
            mains.append(read(s / "online") == "1")
        elif kind == "Battery" and read(s / "status") == "Discharging":
            discharging = True
    if any(mains):
        return None
    if mains and discharging:
        return "on battery"
    if not mains and discharging:
        return "on battery"
    return None


def logind_sessions(loginctl: str) -> list[dict[str, str]] | None:
    """Each logind session's Type, Class, Active, IdleHint, IdleSinceHint (µs, wall clock),
    or None when loginctl does not answer (no systemd)."""
    try:
        listing = subprocess.run([loginctl, "list-sessions", "--no-legend", "--no-pager"], capture_output=True,
                                 text=True, timeout=LOGINCTL_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if listing.returncode != 0:
        return None
    sessions = []
    for line in listing.stdout.splitlines():
        fields = line.split()
        if not fields:
            continue
        try:
            shown = subprocess.run(
                [loginctl, "show-session", fields[0], "--no-pager", "-p", "Id", "-p", "Type", "-p", "Class",
                 "-p", "Active", "-p", "IdleHint", "-p", "IdleSinceHint"],
                capture_output=True, text=True, timeout=LOGINCTL_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired):
            continue
        props = dict(ln.split("=", 1) for ln in shown.stdout.splitlines() if "=" in ln)
        if props:
            sessions.append(props)
    return sessions


def logind_probe(sessions: list[dict[str, str]], now: float, idle_after: float) -> str | None:
    """Why the owner is active according to logind's graphical sessions, or None."""
    for s in sessions:
        if s.get("Class") != "user" or s.get("Type") not in GRAPHICAL or s.get("Active") != "yes":
            continue
        name = f"graphical session {s.get('Id', '?')} ({s.get('Type')})"
        if s.get("IdleHint") != "yes":
            return f"owner active: {name} is not idle"
        since = int(s.get("IdleSinceHint") or 0) / 1e6
        if since > 0 and now - since < idle_after:
            return f"owner active: {name} idle for {max(0.0, now - since):.0f} s only (idle_after_s = {idle_after:g})"
    return None


def load_probe(load1: float, own_running: int, max_load: float) -> str | None:
    others = load1 - own_running
    if others > max_load:
        return (f"machine busy: load average {load1:.2f} minus this daemon's {own_running} running "
                f"instance{'s' if own_running != 1 else ''} is above max_load {max_load:g}")
    return None


def idle_probe(cfg: Config, own_running: int, now: float | None = None,
               load1: float | None = None, sessions: list[dict[str, str]] | None = None) -> tuple[bool, str]:
    """(available, reason) under the idle policy, first failing rule wins."""
    now = time.time() if now is None else now
    if not cfg.run_on_battery and battery_state(cfg.power_supply_dir) is not None:
        return False, "owner's machine is on battery"
    used = tty_activity(cfg.idle_ttys)
    if used is not None and now - used[0] < cfg.idle_after_s:
        ago = max(0.0, now - used[0])
        return False, f"owner active: terminal {used[1]} used {ago:.0f} s ago (idle_after_s = {cfg.idle_after_s:g})"
    if sessions:
        why = logind_probe(sessions, now, cfg.idle_after_s)
        if why:
            return False, why
    if load1 is None:
        load1 = os.getloadavg()[0]
    why = load_probe(load1, own_running, cfg.max_load)
    if why:
        return False, why
    return True, ""


class AvailabilityMonitor:
    """Probes the policy every `availability_check_s` and applies the answer's changes."""

    def __init__(self, config: Config, jobs: JobManager, outbox: Outbox,
                 clock: Callable[[], datetime] = datetime.now) -> None:
        self.config = config
        self.jobs = jobs
        self.outbox = outbox
        self.clock = clock
        self.policy = config.availability
        self.windows = parse_windows(config.windows)
        self.next_check = 0.0
        self.checking: asyncio.Task[None] | None = None
        self.evicting: set[asyncio.Task[None]] = set()
        self.loginctl = shutil.which("loginctl") if config.logind and self.policy == "idle" else None
        self.stopped = False

    def probe(self, own_running: int = 0) -> tuple[bool, str]:
        """(available, reason) now; blocking (files, loginctl): run it in a thread."""
        if self.policy == "windows":
            return windows_probe(self.windows, self.clock())
        if self.policy == "idle":
            sessions = None
            if self.loginctl:
                sessions = logind_sessions(self.loginctl)
                if sessions is None:
                    logger.info("availability: loginctl does not answer, logind sessions not watched")
                    self.loginctl = None
            return idle_probe(self.config, own_running, sessions=sessions)
        return True, ""

    def start(self) -> None:
        """The first answer, before the hello (no instances run yet: nothing to evict)."""
        available, reason = self.probe(0)
        self.jobs.set_availability(available, reason)
        logger.info("availability policy %s: %s", self.policy,
                    "available" if available else f"unavailable ({reason})")

    def on_tick(self, now: float) -> None:
        """Every server tick: start a check when one is due and none is under way."""
        if self.policy == "always" or self.stopped or now < self.next_check:
            return
        if self.checking is not None and not self.checking.done():
            return
        self.next_check = now + self.config.availability_check_s
        self.checking = asyncio.create_task(self._check(), name="availability-check")

    async def _check(self) -> None:
        own = len(self.jobs.running())
        available, reason = await asyncio.to_thread(self.probe, own)
        if not self.stopped:
            self.apply(available, reason)

    def apply(self, available: bool, reason: str) -> None:
        """Act on a probe's answer: only a change of `available` is sent and acted upon."""
        was = self.jobs.available
        self.jobs.set_availability(available, reason)
        if available == was:
            return
        self.outbox.reply({"type": "availability", "available": available, "reason": reason})
        if available:
            logger.info("available again: offering this daemon to the controller")
            return
        logger.warning("unavailable: %s; evicting %d instance(s)", reason, len(self.jobs.running()))
        task = asyncio.create_task(self.jobs.evict(reason, self.config.evict_grace_s), name="evict")
        self.evicting.add(task)
        task.add_done_callback(self.evicting.discard)

    async def stop(self) -> None:
        self.stopped = True
        if self.checking is not None and not self.checking.done():
            self.checking.cancel()
            await asyncio.gather(self.checking, return_exceptions=True)
        if self.evicting:
            await asyncio.gather(*list(self.evicting), return_exceptions=True)


def eviction_bound(cfg: Config) -> float:
    """Seconds from the moment the probe can see the owner (a tty's atime moved, a window
    closed) to the last instance reported LOST: one check period, the grace, and one second
    for the tick, the probe and reaping (daemon/README.md)."""
    return cfg.availability_check_s + cfg.evict_grace_s + 1.0


__all__ = ["POLICIES", "AvailabilityMonitor", "Window", "WindowError", "battery_state", "eviction_bound",
           "idle_probe", "load_probe", "logind_probe", "parse_window", "parse_windows", "tty_activity",
           "windows_probe"]
