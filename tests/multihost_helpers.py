"""Test hosts on this machine: network namespaces joined by veth pairs to a bridge (iproute2).

    root namespace:  bridge slbr0, 10.77.0.1/24  (the controller's web binds here)
    host k:          netns slh<k>, eth0 = 10.77.0.(10+k)/24, default route via 10.77.0.1,
                     its veth's other end slv<k> is a port of slbr0

Each host runs a real splayd (`ip netns exec slh<k> .venv/bin/python -m splayd --config ...`)
whose config comes from `manage.py daemon_create`, with `ip` set to the host's address so that
nodes on different hosts reach each other through the bridge. Needs root (CAP_NET_ADMIN,
CAP_SYS_ADMIN) and iproute2; where bridged traffic passes through iptables (br_netfilter, e.g.
Docker's FORWARD policy DROP) one ACCEPT rule for the bridge is added and removed again.

Everything created here is named sl*: `cleanup_all()` removes every slh* namespace (killing its
processes), slv* link and the bridge, whatever a crashed earlier run left.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BRIDGE = "slbr0"
BRIDGE_IP = "10.77.0.1"
PREFIX = 24
NETNS_PREFIX = "slh"
VETH_PREFIX = "slv"
FORWARD_RULE = ["FORWARD", "-i", BRIDGE, "-o", BRIDGE, "-j", "ACCEPT"]


class HostSetupError(RuntimeError):
    pass


def run(*argv: str, check: bool = True, timeout: float = 30) -> subprocess.CompletedProcess:
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise HostSetupError(f"{' '.join(argv)} -> exit {proc.returncode}: {proc.stderr.strip()}")
    return proc


def host_ip(k: int) -> str:
    return f"10.77.0.{10 + k}"


def require_root() -> str | None:
    """None when this process can build hosts; else why not (for a clear failure)."""
    if os.geteuid() != 0:
        return ("tests/multihost builds network namespaces and veth pairs: it needs root "
                "(`make test` runs as root here). Run it as root, or leave it out explicitly "
                "with --ignore=tests/multihost.")
    for tool in ("ip",):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode:
            return f"tests/multihost needs `{tool}` (Debian package iproute2)"
    return None


def _netns_list() -> list[str]:
    out = run("ip", "netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def netns_pids(netns: str) -> list[int]:
    out = run("ip", "netns", "pids", netns, check=False).stdout
    return [int(p) for p in out.split() if p.isdigit()]


def kill_netns(netns: str, sig: int = signal.SIGKILL) -> list[int]:
    pids = netns_pids(netns)
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
    return pids


def _bridge_filtered() -> bool:
    try:
        return Path("/proc/sys/net/bridge/bridge-nf-call-iptables").read_text().strip() == "1"
    except OSError:
        return False


def cleanup_all() -> None:
    """Remove every slh* namespace (its processes killed first), slv* link, the bridge and its rule."""
    for ns in _netns_list():
        if re.fullmatch(rf"{NETNS_PREFIX}\d+", ns):
            kill_netns(ns)
            deadline = time.monotonic() + 5
            while netns_pids(ns) and time.monotonic() < deadline:
                time.sleep(0.05)
            run("ip", "netns", "del", ns, check=False)
    links = run("ip", "-o", "link", "show", check=False).stdout
    for name in re.findall(rf"^\d+: ({VETH_PREFIX}\d+)[@:]", links, re.M):
        run("ip", "link", "del", name, check=False)
    run("ip", "link", "del", BRIDGE, check=False)
    while run("iptables", "-C", *FORWARD_RULE, check=False).returncode == 0:
        run("iptables", "-D", *FORWARD_RULE, check=False)


def bridge_up() -> None:
    cleanup_all()
    run("ip", "link", "add", BRIDGE, "type", "bridge")
    run("ip", "addr", "add", f"{BRIDGE_IP}/{PREFIX}", "dev", BRIDGE)
    run("ip", "link", "set", BRIDGE, "up")
    if _bridge_filtered():  # bridged frames go through iptables' FORWARD (Docker: policy DROP)
        run("iptables", "-I", *FORWARD_RULE)


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, str)):
        return json.dumps(v)  # a JSON string is a valid TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"no TOML for {v!r}")


def config_override(text: str, overrides: dict[str, Any]) -> str:
    """Set top-level keys of a splayd TOML: replace the line of a key already there, else add."""
    lines = text.splitlines()
    for key, value in overrides.items():
        line = f"{key} = {toml_value(value)}"
        pattern = re.compile(rf"^{re.escape(key)}\s*=")
        for i, old in enumerate(lines):
            if pattern.match(old):
                lines[i] = line
                break
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


@dataclass
class Host:
    """Test host k: netns slh<k> at 10.77.0.(10+k), running the daemon `daemon_name`."""
    k: int
    daemon_name: str
    config: Path
    log: Path
    python: str = str(ROOT / ".venv" / "bin" / "python")
    proc: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return f"{NETNS_PREFIX}{self.k}"

    @property
    def ip(self) -> str:
        return host_ip(self.k)

    @property
    def veth(self) -> str:
        """The root namespace's end of this host's link (a port of the bridge)."""
        return f"{VETH_PREFIX}{self.k}"

    # ---- the namespace
    def create(self) -> None:
        run("ip", "netns", "add", self.name)
        run("ip", "link", "add", self.veth, "type", "veth", "peer", "name", "eth0", "netns", self.name)
        run("ip", "link", "set", self.veth, "master", BRIDGE)
        run("ip", "link", "set", self.veth, "up")
        run("ip", "-n", self.name, "addr", "add", f"{self.ip}/{PREFIX}", "dev", "eth0")
        run("ip", "-n", self.name, "link", "set", "lo", "up")
        run("ip", "-n", self.name, "link", "set", "eth0", "up")
        run("ip", "-n", self.name, "route", "add", "default", "via", BRIDGE_IP)

    def destroy(self) -> None:
        self.kill()
        run("ip", "link", "del", self.veth, check=False)
        run("ip", "netns", "del", self.name, check=False)

    def exec(self, *argv: str, timeout: float = 30) -> subprocess.CompletedProcess:
        """Run a command inside this host's namespace (output captured)."""
        return subprocess.run(["ip", "netns", "exec", self.name, *argv], capture_output=True,
                              text=True, timeout=timeout)

    def pids(self) -> list[int]:
        return netns_pids(self.name)

    # ---- faults
    def link_down(self) -> None:
        """Cut the cable: the bridge's end goes down (no carrier on the host's eth0 either);
        processes inside keep running and their TCP connections stall, nobody is told."""
        run("ip", "link", "set", self.veth, "down")

    def link_up(self) -> None:
        run("ip", "link", "set", self.veth, "up")

    def kill(self) -> list[int]:
        """kill -9 every process of the namespace (daemon, nodes): the host dies outright."""
        killed = kill_netns(self.name)
        deadline = time.monotonic() + 5
        while self.pids() and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.proc is not None:
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
        return killed

    # ---- the daemon
    def daemon_start(self) -> None:
        assert self.proc is None or self.proc.poll() is not None, f"{self.name}: daemon already running"
        log = open(self.log, "ab")
        try:
            self.proc = subprocess.Popen(
                ["ip", "netns", "exec", self.name, self.python, "-m", "splayd", "--config", str(self.config)],
                cwd=ROOT / "daemon", stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
        finally:
            log.close()

    def daemon_alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def daemon_stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> int | None:
        """Signal the daemon (SIGTERM: it kills its nodes and reports), SIGKILL after `timeout`."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def daemon_restart(self) -> None:
        self.daemon_stop()
        self.daemon_start()

    def set_config(self, **overrides: Any) -> None:
        """Change keys of this host's splayd.toml (takes effect at the next daemon_start)."""
        self.config.write_text(config_override(self.config.read_text(), overrides))

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


@dataclass
class NatHost(Host):
    """Test host k behind a home router (issue 24): the volunteer's machine, netns slh<k>, holds
    192.168.<k>.2 on a LAN with the router, netns slh<200+k>, whose eth0 is 10.77.0.(10+k) on the
    bridge. The router masquerades what goes out and forwards nothing in (no port forwarding):
    new connections and datagrams from the bridge to its address are dropped, as a home router's
    are; replies to what went out come back. `ip` is the LAN address a volunteer would write
    in the config; the controller records the router's (`public_ip`), the peer it sees."""

    @property
    def ip(self) -> str:
        return f"192.168.{self.k}.2"

    @property
    def public_ip(self) -> str:
        return host_ip(self.k)

    @property
    def router(self) -> str:
        return f"{NETNS_PREFIX}{200 + self.k}"

    def create(self) -> None:
        r, lan = self.router, f"192.168.{self.k}"
        run("ip", "netns", "add", r)
        run("ip", "link", "add", self.veth, "type", "veth", "peer", "name", "eth0", "netns", r)
        run("ip", "link", "set", self.veth, "master", BRIDGE)
        run("ip", "link", "set", self.veth, "up")
        run("ip", "-n", r, "addr", "add", f"{self.public_ip}/{PREFIX}", "dev", "eth0")
        for link in ("lo", "eth0"):
            run("ip", "-n", r, "link", "set", link, "up")
        run("ip", "-n", r, "route", "add", "default", "via", BRIDGE_IP)
        run("ip", "netns", "add", self.name)
        run("ip", "-n", r, "link", "add", "lan0", "type", "veth", "peer", "name", "eth0", "netns", self.name)
        run("ip", "-n", r, "addr", "add", f"{lan}.1/24", "dev", "lan0")
        run("ip", "-n", r, "link", "set", "lan0", "up")
        run("ip", "-n", self.name, "addr", "add", f"{self.ip}/24", "dev", "eth0")
        for link in ("lo", "eth0"):
            run("ip", "-n", self.name, "link", "set", link, "up")
        run("ip", "-n", self.name, "route", "add", "default", "via", f"{lan}.1")
        rules = [["sysctl", "-qw", "net.ipv4.ip_forward=1"],
                 ["iptables", "-t", "nat", "-A", "POSTROUTING", "-o", "eth0", "-j", "MASQUERADE"],
                 ["iptables", "-A", "FORWARD", "-i", "eth0", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED",
                  "-j", "ACCEPT"],
                 ["iptables", "-A", "FORWARD", "-i", "eth0", "-j", "DROP"],
                 ["iptables", "-A", "INPUT", "-i", "eth0", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED",
                  "-j", "ACCEPT"],
                 ["iptables", "-A", "INPUT", "-i", "eth0", "-j", "DROP"]]
        for rule in rules:
            run("ip", "netns", "exec", r, *rule)

    def router_exec(self, *argv: str) -> subprocess.CompletedProcess:
        """A command in the router's namespace (e.g. iptables, to cut one link)."""
        return run("ip", "netns", "exec", self.router, *argv)

    def destroy(self) -> None:
        super().destroy()
        kill_netns(self.router)
        run("ip", "netns", "del", self.router, check=False)


def daemon_states(stack: Any, names: list[str]) -> dict[str, str]:
    """{daemon name: state} from the controller's /api/daemons/ (teacher's view)."""
    rows = stack.api("GET", "/api/daemons/", token=stack.teacher_token)
    return {d["name"]: d["state"] for d in rows if d["name"] in names}


def wait_daemon_states(stack: Any, names: list[str], states: set[str], timeout: float = 30) -> float:
    """Wait until every daemon of `names` is in one of `states`; returns the seconds it took."""
    t0 = time.monotonic()
    seen: dict[str, str] = {}
    while time.monotonic() - t0 < timeout:
        seen = daemon_states(stack, names)
        if len(seen) == len(names) and all(s in states for s in seen.values()):
            return time.monotonic() - t0
        time.sleep(0.2)
    raise AssertionError(f"daemons {names} not in {sorted(states)} within {timeout} s: {seen}")
