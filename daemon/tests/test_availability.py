"""The owner's side (issue 8): availability policies, eviction, labels, ceilings, nice.

Real daemons (in-process Server) against the FakeController, real luajit nodes. The owner's
activity is simulated through the configurable inputs of the idle probe: a temporary
directory stands for /dev/pts (touching a file in it = a key pressed in a terminal), another
for /sys/class/power_supply, and max_load is set out of reach unless the load rule is tested
(this machine's load is not ours to control); logind is off (no systemd here to drive).
"""
from __future__ import annotations

import json
import os
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from splayd.availability import (
    AvailabilityMonitor, WindowError, battery_state, eviction_bound, idle_probe, load_probe, logind_probe,
    parse_window, parse_windows, tty_activity, windows_probe,
)
from splayd.config import ConfigError
from splayd.jobs import JobManager
from splayd.outbox import Outbox

from .utils import FakeController, make_config

MB = 1024 * 1024
DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
# node 1 leaves when asked; node 2's leave handler never returns: it needs the SIGKILL
STUBBORN = ('print("up")\n'
            'if job.position == 2 then events.on_leave(function() while true do events.sleep(0.05) end end)\n'
            'else events.on_leave(function() print("bye") end) end\n'
            'events.run(function() while true do events.sleep(0.05) end end)\n')


def owner_dirs(tmp_path: Path) -> tuple[Path, Path]:
    """A fake /dev/pts with one terminal last used an hour ago, and an empty power_supply
    directory (a desktop: no battery)."""
    pts, power = tmp_path / "pts", tmp_path / "power"
    pts.mkdir(exist_ok=True)
    power.mkdir(exist_ok=True)
    (pts / "3").write_text("")
    (pts / "ptmx").write_text("")  # never counts
    away(pts / "3")
    return pts, power


def away(tty: Path, seconds: float = 3600) -> None:
    old = time.time() - seconds
    os.utime(tty, (old, old))


def touch(tty: Path) -> None:
    os.utime(tty, None)  # a key pressed: atime (and mtime) now


def idle_config(tmp_path: Path, url: str = "ws://x/", **extra: object) -> dict[str, object]:
    pts, power = owner_dirs(tmp_path)
    return {"availability": "idle", "idle_ttys": [str(pts)], "power_supply_dir": str(power), "logind": False,
            "max_load": 10_000.0, "availability_check_s": 0.5, "evict_grace_s": 1.0, **extra}


# ---- windows ---------------------------------------------------------------------------------
def at(day: str, hhmm: str) -> datetime:
    base = datetime(2024, 1, 1)  # a Monday
    h, m = map(int, hhmm.split(":"))
    return base + timedelta(days=DAY_NAMES.index(day), hours=h, minutes=m)


def test_windows_cross_midnight_from_their_start_day() -> None:
    evenings, weekend = parse_windows(["Mon-Fri 18:00-08:00", "Sat-Sun 00:00-24:00"])
    assert evenings.days == frozenset(range(5)) and (evenings.start, evenings.end) == (18 * 60, 8 * 60)
    assert weekend.end == 24 * 60 and not weekend.crosses_midnight
    inside = [at("Mon", "18:00"), at("Tue", "07:59"), at("Fri", "23:30"), at("Sat", "07:00"), at("Sun", "12:00"),
              at("Sun", "23:59")]
    outside = [at("Mon", "07:00"), at("Mon", "08:00"), at("Wed", "12:00"), at("Fri", "17:59")]
    both = [evenings, weekend]
    assert [windows_probe(both, t)[0] for t in inside] == [True] * len(inside)
    assert [windows_probe(both, t)[0] for t in outside] == [False] * len(outside)
    # Mon 07:00 belongs to a window that would start on Sunday evening: Mon-Fri does not
    assert not evenings.contains(at("Mon", "07:00")) and evenings.contains(at("Sat", "07:59"))
    available, reason = windows_probe(both, at("Wed", "12:00"))
    assert reason == ("outside the availability windows (Wed 12:00 is not in Mon-Fri 18:00-08:00, "
                      "Sat-Sun 00:00-24:00)")
    wrapping = parse_window("Fri-Mon 20:00-06:00")
    assert wrapping.days == frozenset({4, 5, 6, 0})
    assert parse_window("Mon,wed,Friday 12:00-14:00").days == frozenset({0, 2, 4})


@pytest.mark.parametrize(("entry", "message"), [
    ("Mon-Fri18:00-08:00", r'expected "DAYS HH:MM-HH:MM"'),
    ("Mon-Fri 18:00", r"bad hours '18:00' \(expected HH:MM-HH:MM\)"),
    ("Mon-Fir 18:00-08:00", r"unknown day 'Fir'"),
    ("Mon 25:00-08:00", r"bad time '25:00'"),
    ("Mon 24:00-08:00", r"bad time '24:00'"),
    ("Mon 08:00-08:00", r"empty window '08:00-08:00'"),
    ("Mon 8h-9h", r"bad time '8h'"),
    (7, r"expected a string"),
])
def test_bad_windows_are_named(entry: object, message: str) -> None:
    with pytest.raises(WindowError, match=r"^windows\[1\] " + r".*: " + message):
        parse_windows(["Sat 00:00-24:00", entry])


def test_config_policy_fields(tmp_path: Path) -> None:
    cfg = make_config(tmp_path, "ws://x/")
    assert (cfg.availability, cfg.availability_check_s, cfg.evict_grace_s, cfg.idle_after_s) == ("always", 1.0, 2.0, 300.0)
    assert cfg.idle_ttys == ("/dev/pts", "/dev/tty[0-9]*") and cfg.max_load == 1.0 and not cfg.run_on_battery
    assert (cfg.labels, cfg.nice) == ({}, 0)
    cfg = make_config(tmp_path, "ws://x/", availability="windows", windows=["Sat-Sun 00:00-24:00"],
                      labels={"room": "B12", "owner": "volunteer"}, nice=10)
    assert cfg.windows == ("Sat-Sun 00:00-24:00",) and cfg.labels == {"room": "B12", "owner": "volunteer"}
    bad = [
        ({"availability": "sometimes"}, r"availability: expected always, idle or windows, got 'sometimes'"),
        ({"availability": "windows"}, r"windows: required with availability = \"windows\""),
        ({"availability": "windows", "windows": ["Mon-Fri 18:00-08:00", "Sun 9:00-9:99"]},
         r"test\.toml: windows\[1\] 'Sun 9:00-9:99': bad time '9:99'"),
        ({"windows": ["Sat 00:00-24:00"]}, r"windows: only used with availability = \"windows\""),
        ({"labels": {"room": 12}}, r"labels\.room: expected a non-empty string"),
        ({"labels": {"bad key": "x"}}, r"labels\.bad key: a label's name"),
        ({"labels": ["room"]}, r"labels: expected a table of strings"),
        ({"nice": 20}, r"nice: expected an integer from 0 to 19, got 20"),
        ({"availability_check_s": 0}, r"availability_check_s: expected a number > 0"),
        ({"evict_grace_s": -1}, r"evict_grace_s: expected a number >= 0"),
        ({"run_on_battery": "yes"}, r"run_on_battery: expected true or false"),
        ({"idle_ttys": "/dev/pts"}, r"idle_ttys: expected a list of non-empty strings"),
    ]
    for overrides, message in bad:
        with pytest.raises(ConfigError, match=message):
            make_config(tmp_path, "ws://x/", **overrides)


# ---- idle: the probe's rules -----------------------------------------------------------------
def test_tty_rule_uses_the_newest_terminal_and_ignores_ptmx(tmp_path: Path) -> None:
    pts, _ = owner_dirs(tmp_path)
    (pts / "7").write_text("")
    away(pts / "7", 100)
    os.utime(pts / "ptmx", None)  # the multiplexer moves with every terminal: never counts
    atime, name = tty_activity([str(pts), str(tmp_path / "missing*")])
    assert name.endswith("pts/7") and 99 <= time.time() - atime <= 110
    assert tty_activity([str(tmp_path / "nothing-here*")]) is None


def test_idle_probe_rules(tmp_path: Path) -> None:
    cfg = make_config(tmp_path, "ws://x/", **idle_config(tmp_path, idle_after_s=300))
    pts = tmp_path / "pts"
    assert idle_probe(cfg, 0, load1=0.1) == (True, "")
    touch(pts / "3")
    available, reason = idle_probe(cfg, 0, load1=0.1)
    assert not available
    assert reason.startswith(f"owner active: terminal {pts}/3 used 0 s ago (idle_after_s = 300)")
    away(pts / "3", 299)
    assert idle_probe(cfg, 0, load1=0.1)[0] is False
    away(pts / "3", 301)
    assert idle_probe(cfg, 0, load1=0.1) == (True, "")
    # load: the 1-min average minus this daemon's running instances, against max_load
    cfg = make_config(tmp_path, "ws://x/", **idle_config(tmp_path, max_load=1.0))
    assert idle_probe(cfg, 3, load1=3.9) == (True, "")
    assert idle_probe(cfg, 2, load1=3.5) == (False, "machine busy: load average 3.50 minus this daemon's 2 "
                                                    "running instances is above max_load 1")
    assert load_probe(1.5, 1, 1.0) is None and load_probe(2.01, 1, 1.0) is not None


def test_battery_rule(tmp_path: Path) -> None:
    def supply(root: Path, name: str, **files: str) -> None:
        (root / name).mkdir(parents=True)
        for k, v in files.items():
            (root / name / k).write_text(v + "\n")

    laptop = tmp_path / "laptop"
    supply(laptop, "AC", type="Mains", online="0")
    supply(laptop, "BAT0", type="Battery", status="Discharging")
    assert battery_state(laptop) == "on battery"
    (laptop / "AC" / "online").write_text("1\n")
    assert battery_state(laptop) is None
    no_mains = tmp_path / "no_mains"
    supply(no_mains, "BAT0", type="Battery", status="Discharging")
    assert battery_state(no_mains) == "on battery"
    (no_mains / "BAT0" / "status").write_text("Full\n")
    assert battery_state(no_mains) is None
    assert battery_state(tmp_path / "desktop-without-supplies") is None
    (laptop / "AC" / "online").write_text("0\n")
    cfg = make_config(tmp_path, "ws://x/", **{**idle_config(tmp_path), "power_supply_dir": str(laptop)})
    assert idle_probe(cfg, 0, load1=0.0) == (False, "owner's machine is on battery")
    cfg = make_config(tmp_path, "ws://x/", **{**idle_config(tmp_path), "power_supply_dir": str(laptop),
                                              "run_on_battery": True})
    assert idle_probe(cfg, 0, load1=0.0) == (True, "")


def test_logind_graphical_sessions() -> None:
    now = 1_000_000.0
    tty = {"Id": "1", "Class": "user", "Type": "tty", "Active": "yes", "IdleHint": "no"}
    x11 = {"Id": "2", "Class": "user", "Type": "x11", "Active": "yes", "IdleHint": "no", "IdleSinceHint": "0"}
    greeter = {"Id": "c1", "Class": "greeter", "Type": "x11", "Active": "yes", "IdleHint": "no"}
    assert logind_probe([tty, greeter], now, 300) is None  # terminals: the tty rule's business
    assert logind_probe([x11], now, 300) == "owner active: graphical session 2 (x11) is not idle"
    idle_since = str(int((now - 100) * 1e6))
    assert logind_probe([{**x11, "IdleHint": "yes", "IdleSinceHint": idle_since}], now, 300) == \
        "owner active: graphical session 2 (x11) idle for 100 s only (idle_after_s = 300)"
    assert logind_probe([{**x11, "IdleHint": "yes", "IdleSinceHint": idle_since}], now, 60) is None
    assert logind_probe([{**x11, "Active": "no"}], now, 300) is None  # another user's, switched away


# ---- idle: a real daemon evicts, refuses, and comes back -------------------------------------
async def test_idle_daemon_evicts_within_its_bound_refuses_and_offers_itself_again(
        controller: FakeController, run_daemon, tmp_path: Path) -> None:
    overrides = idle_config(tmp_path)
    tty = tmp_path / "pts" / "3"
    async with run_daemon(**overrides) as server:
        bound = eviction_bound(server.config)
        assert bound == 0.5 + 1.0 + 1.0
        assert controller.hellos[0]["availability"] == {"policy": "idle", "available": True, "reason": ""}
        await controller.deploy(1, STUBBORN, nodes=2, duration=60)
        await controller.wait_until(lambda: len([ln for ln in controller.lines(1) if ln["text"] == "up"]) == 2)

        touch(tty)  # the owner is back
        t0 = time.monotonic()
        finals = await controller.wait_until(
            lambda: [controller.final_state(1, n) for n in (1, 2)] if all(
                controller.final_state(1, n) for n in (1, 2)) else None, timeout=bound + 5)
        elapsed = time.monotonic() - t0
        assert elapsed <= bound, f"evicted in {elapsed:.2f} s, bound {bound} s"
        why = f"owner active: terminal {tmp_path}/pts/3 used "
        for f in finals:
            assert f["state"] == "LOST" and f["reason"].startswith("evicted: " + why), f
        # node 1 left through its on_leave handler (SIGTERM); node 2 needed the SIGKILL
        assert [ln["text"] for ln in controller.lines(1, 1)][-3:] == ["leaving gracefully", "bye", "left gracefully"]
        assert finals[1]["exit_code"] == -9
        # the availability frame came before the LOST reports, and said why
        kinds = [(m["type"], m.get("available")) for m in controller.messages if m["type"] in ("availability", "instance")]
        first_lost = next(i for i, m in enumerate(controller.messages)
                          if m["type"] == "instance" and m["state"] == "LOST")
        frames = controller.of_type("availability")
        assert len(frames) == 1 and frames[0]["available"] is False and frames[0]["reason"].startswith(why), kinds
        assert controller.messages.index(frames[0]) < first_lost
        assert not server.jobs.jobs and server.jobs.used_slots() == 0  # every slot freed

        refused = await controller.command("register", job=2, count=1, max_mem=64 * MB, max_cpu=5, duration=10)
        assert refused["ok"] is False and refused["reason"].startswith("UNAVAILABLE: " + why)
        assert server.jobs.hello_owner()["availability"]["available"] is False

        away(tty)  # idle again
        back = await controller.wait_until(lambda: controller.of_type("availability")[1:], timeout=5)
        assert back[0] == {"type": "availability", "available": True, "reason": "", **(
            {"o": back[0]["o"]} if "o" in back[0] else {})}
        again = await controller.command("register", job=2, count=1, max_mem=64 * MB, max_cpu=5, duration=10)
        assert again["ok"] is True


async def test_windows_daemon_outside_its_windows_says_so_and_refuses(controller: FakeController,
                                                                      run_daemon) -> None:
    other_day = DAY_NAMES[(datetime.now().weekday() + 3) % 7]
    async with run_daemon(availability="windows", windows=[f"{other_day} 00:00-01:00"]) as server:
        state = controller.hellos[0]["availability"]
        assert state["policy"] == "windows" and state["available"] is False
        assert state["reason"].startswith("outside the availability windows (")
        assert state["reason"].endswith(f"is not in {other_day} 00:00-01:00)")
        reply = await controller.command("register", job=1, count=1)
        assert reply == {**reply, "ok": False, "reason": "UNAVAILABLE: " + state["reason"]}
        # the window opens (a clock the test controls): available, offered again
        monitor = server.availability
        assert monitor is not None
        monitor.clock = lambda: at(other_day, "00:30")
        back = await controller.wait_until(lambda: controller.of_type("availability"), timeout=5)
        assert back[0]["available"] is True
        assert (await controller.command("register", job=1, count=1))["ok"] is True


async def test_always_policy_never_probes(tmp_path: Path) -> None:
    cfg = make_config(tmp_path, "ws://x/")
    jobs = JobManager(cfg, Outbox(), "luajit")
    monitor = AvailabilityMonitor(cfg, jobs, jobs.outbox)
    monitor.start()
    monitor.on_tick(time.monotonic() + 100)
    assert monitor.checking is None and jobs.available


# ---- labels, ceilings ----------------------------------------------------------------------
async def test_hello_carries_labels_ceilings_and_availability(controller: FakeController, run_daemon) -> None:
    async with run_daemon(labels={"room": "B12", "owner": "volunteer"}, nice=5, max_sockets=16,
                          disk_max_size_mb=32, max_bandwidth_kbps=8000):
        hello = controller.hellos[0]
        assert hello["labels"] == {"room": "B12", "owner": "volunteer"}
        assert hello["limits"] == {"max_mem_mb": 128, "max_cpu_seconds": 5, "disk_max_size_mb": 32,
                                   "disk_max_files": 1000, "max_sockets": 16, "max_send_mb": 1024,
                                   "max_receive_mb": 1024, "nice": 5, "max_bandwidth_kbps": 8000,
                                   "log_lines_per_second": 1000, "log_max_size_mb": 50}
        assert hello["availability"] == {"policy": "always", "available": True, "reason": ""}


async def test_register_above_a_ceiling_is_refused_with_its_code(controller: FakeController, run_daemon) -> None:
    async with run_daemon(max_sockets=16, disk_max_size_mb=32, disk_max_files=100, max_send_mb=10,
                          max_receive_mb=20, max_instances=2, ports=[27150, 27151]) as server:
        async def register(**fields: object) -> dict:
            return await controller.command("register", job=9, count=1, duration=10, **fields)

        cases = [
            ({"max_mem": 512 * MB}, "INVALID_MEM: asked 512 MB per node, this daemon allows 128 MB"),
            ({"max_cpu": 6}, "INVALID_CPU: asked 6 s of CPU per node, this daemon allows 5 s"),
            ({"limits": {"disk_max_size": 33 * MB}}, "INVALID_DISK: asked 33 MB of disk per node, "
                                                     "this daemon allows 32 MB"),
            ({"limits": {"disk_max_files": 101}}, "INVALID_DISK: asked 101 files per node, this daemon allows 100"),
            ({"limits": {"max_send": 11 * MB}}, "INVALID_NET: asked max_send = 11 MB per node, "
                                                "this daemon allows 10 MB"),
            ({"limits": {"max_receive": 21 * MB}}, "INVALID_NET: asked max_receive = 21 MB per node, "
                                                   "this daemon allows 20 MB"),
            ({"limits": {"max_sockets": 17}}, "INVALID_SOCKETS: asked 17 sockets per node, this daemon allows 16"),
        ]
        for fields, reason in cases:
            reply = await register(**fields)
            assert (reply["ok"], reply["reason"]) == (False, reason), fields
        assert not server.jobs.jobs  # nothing reserved by a refusal
        # at the ceilings exactly: accepted, and what is missing is filled from the ceilings
        ok = await register(max_mem=128 * MB, max_cpu=5, limits={"max_sockets": 16, "disk_max_files": 100})
        assert ok["ok"] is True
        limits = server.jobs.jobs[9].limits
        assert (limits.max_mem, limits.max_cpu, limits.runtime["max_send"], limits.runtime["disk_max_size"]) == (
            128 * MB, 5, 10 * MB, 32 * MB)
        slots = await controller.command("register", job=10, count=2, duration=10)
        assert (slots["ok"], slots["reason"]) == (False, "NO_SLOTS: asked 2 slots, only 1 free of 2")
        # list may correct the limits, within the same ceilings
        listed = await controller.command("list", job=9, code="", filename="app.lua",
                                          instances=[{"node": 1, "port": ok["ports"][0]}],
                                          nodes=[{"ip": "127.0.0.1", "port": ok["ports"][0]}],
                                          limits={"max_sockets": 99})
        assert listed == {**listed, "ok": False, "reason": "INVALID_SOCKETS: asked 99 sockets per node, "
                                                           "this daemon allows 16"}


async def test_busy_ports_is_refused_with_its_code(controller: FakeController, run_daemon) -> None:
    import socket
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("0.0.0.0", 27161))
        taken.listen()
        async with run_daemon(max_instances=2, ports=[27160, 27161]):
            reply = await controller.command("register", job=1, count=2, duration=10)
            assert (reply["ok"], reply["reason"]) == (False, "BUSY_PORTS: asked 2 ports, only 1 free in 27160-27161")


# ---- nice ------------------------------------------------------------------------------------
async def test_instances_run_at_the_owners_niceness(controller: FakeController, run_daemon) -> None:
    base = os.getpriority(os.PRIO_PROCESS, 0)
    async with run_daemon(nice=min(19, base + 7)) as server:
        await controller.deploy(1, 'print("up")\nwhile true do events.sleep(0.05) end', nodes=1)
        await controller.wait_until(lambda: [ln for ln in controller.lines(1) if ln["text"] == "up"])
        inst = server.jobs.jobs[1].instances[1]
        assert inst.proc is not None
        from splayd.instances import descendants
        pids = [inst.proc.pid, *descendants(inst.proc.pid)]
        assert {os.getpriority(os.PRIO_PROCESS, p) for p in pids} == {min(19, base + 7)}
        await controller.command("stop", job=1)


def test_docker_containers_get_the_cpu_share_of_that_niceness(tmp_path: Path) -> None:
    from splayd.docker_backend import DockerJobSandbox
    from splayd.instances import Limits

    def shares(nice: int) -> int:
        limits = Limits(max_mem=64 * MB, max_cpu=5, max_open_files=64, max_file_size=MB, duration=None, nice=nice)
        sb = DockerJobSandbox(daemon_name="t", job=1, job_dir=tmp_path, sandbox_dir=tmp_path, limits=limits,
                              instances=1, client=object())
        return sb.container_config("img")["cpu_shares"]

    assert [shares(n) for n in (0, 5, 10, 19)] == [1024, 336, 110, 15]


async def test_the_owners_bandwidth_caps_every_node_and_a_job_asking_more_is_refused(
    controller: FakeController, run_daemon
) -> None:
    sleeper = 'require "splay.base"\nevents.run(function() events.sleep(5) end)'
    async with run_daemon(max_bandwidth_kbps=800) as server:  # 100,000 bytes/s per node
        reply = await controller.command("register", job=41, count=1, max_mem=64 * 1024 * 1024, max_cpu=5, duration=10)
        port = reply["ports"][0]
        listing = {"code": sleeper, "filename": "app.lua", "instances": [{"node": 1, "port": port}],
                   "nodes": [{"ip": "127.0.0.1", "port": port}]}
        too_fast = {"options": {"net": "king", "bandwidth": "2MB/s"}, "seed": 1, "nodes": 1}
        reply = await controller.command("list", job=41, network=too_fast, **listing)
        assert reply == {"type": "reply", "ref": reply["ref"], "ok": False,
                         "reason": "INVALID_NET: asked a bandwidth of 2MB/s per node, this daemon allows 800 kbit/s"}
        assert (await controller.command("list", job=41, **listing))["ok"]  # no network asked
        assert (await controller.command("start", job=41))["ok"]
        spec = json.loads((server.config.work_dir / "job-41" / "node-1" / "job.json").read_text())
        assert spec["net"]["bandwidth"] == 100_000 and spec["net"]["model"] == "lan"
        await controller.command("stop", job=41)
