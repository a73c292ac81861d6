"""Graceful leaves on real LuaJIT nodes: SIGTERM runs the app's events.on_leave handlers, then
the node exits 0; a node without handlers exits 0 at once; a handler that never returns is
killed by the host after the grace period (run_local --churn); and under the daemon's
bubblewrap wrapping the signal must go to LuaJIT, not to bwrap."""
from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SANDBOX = Path(__file__).resolve().parents[1]
NODE_LUA = SANDBOX / "node.lua"
REPO = SANDBOX.parent
sys.path.insert(0, str(SANDBOX))
from run_local import free_port_base  # noqa: E402

LUAJIT = shutil.which("luajit") or "luajit"  # scripts/install-deps.sh installs it

# Node 2 listens for UDP goodbyes; node 1's on_leave handler takes its time, then says bye.
GOODBYE_APP = """require "splay.base"
local u = socket.udp()
assert(u:setsockname("*", job.me.port))
if job.position == 2 then
  events.thread(function()
    while true do
      local data = u:receive()
      if data then log.info("got " .. data) end
    end
  end)
else
  events.on_leave(function()
    log.info("saying goodbye")
    events.sleep(0.3)   -- a goodbye that takes time: the node stays up for it
    local peer = job.nodes[2]
    u:sendto("bye from " .. job.position, peer.ip, peer.port)
    log.info("bye sent")
  end)
end
events.periodic(0.2, function() end)   -- the app's own work
log.info("up")
"""

# Apps without handlers, each waiting in a different way when SIGTERM comes.
NO_HANDLER_APPS = {
    "sleeping": 'require "splay.base"\nevents.run(function() log.info("up"); while true do events.sleep(5) end end)\n',
    "receiving": 'require "splay.base"\nlocal u = socket.udp()\nassert(u:setsockname("*", job.me.port))\n'
                 'events.run(function() log.info("up"); u:receive() end)\n',
    "busy": 'require "splay.base"\nevents.run(function() log.info("up"); while true do events.yield() end end)\n',
}


class Node:
    """`luajit node.lua job.json app.lua` in its own directory and session, as run_local and
    the daemon's rlimits backend start it; its stdout records are collected by a thread."""

    def __init__(self, tmp: Path, app: str, position: int, nodes: list[dict[str, Any]],
                 wrap: Callable[[Path], list[str]] | None = None) -> None:
        self.dir = tmp / f"node-{position}"
        self.dir.mkdir()
        (self.dir / "app.lua").write_text(app)
        (self.dir / "job.json").write_text(json.dumps(
            {"me": nodes[position - 1], "nodes": nodes, "position": position, "job_id": 1, "duration": 30}))
        argv = [*(wrap(self.dir) if wrap else []), str(LUAJIT), str(NODE_LUA), "job.json", "app.lua"]
        self.proc = subprocess.Popen(argv, cwd=self.dir, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.records: list[tuple[float, str, str]] = []
        self.lines: queue.Queue[tuple[str, str]] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            level, _, text = raw.decode(errors="replace").rstrip("\n").partition("\t")
            self.records.append((time.monotonic(), level, text))
            self.lines.put((level, text))

    def wait_for(self, text: str, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.lines.get(timeout=0.1)[1] == text:
                    return
            except queue.Empty:
                continue
        raise AssertionError(f"no record {text!r} within {timeout} s: {self.records}")

    def texts(self) -> list[str]:
        return [text for _, _, text in self.records]

    def end(self, timeout: float = 5.0) -> tuple[int, float]:
        """(exit code, seconds it took to end from now), once every record was read."""
        t0 = time.monotonic()
        code = self.proc.wait(timeout=timeout)
        took = time.monotonic() - t0
        self.reader.join(timeout=timeout)
        return code, took

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


@pytest.fixture
def started(tmp_path: Path):
    nodes_started: list[Node] = []

    def start(app: str, count: int, wrap: Callable[[Path], list[str]] | None = None) -> list[Node]:
        base = free_port_base(count)
        spec = [{"ip": "127.0.0.1", "port": base + i} for i in range(count)]
        for k in range(1, count + 1):
            nodes_started.append(Node(tmp_path, app, k, spec, wrap))
        return nodes_started[-count:]

    yield start
    for node in nodes_started:
        node.kill()


def test_a_leave_handler_says_goodbye_before_the_node_exits_0(started) -> None:
    leaver, listener = started(GOODBYE_APP, 2)
    leaver.wait_for("up")
    listener.wait_for("up")
    os.killpg(leaver.proc.pid, signal.SIGTERM)  # what run_local and the daemon do
    code, took = leaver.end()
    assert code == 0, leaver.records
    assert 0.3 <= took < 2.0  # the handler's 0.3 s, well within run_local's 2 s grace
    assert leaver.texts() == ["up", "leaving gracefully", "saying goodbye", "bye sent", "left gracefully"]
    listener.wait_for("got bye from 1")
    os.killpg(listener.proc.pid, signal.SIGTERM)  # no handler: ends at once, exit 0
    assert listener.end()[0] == 0
    assert listener.texts()[-1] == "left gracefully"


@pytest.mark.parametrize("waiting", sorted(NO_HANDLER_APPS))
def test_without_a_handler_sigterm_ends_the_node_at_once_with_exit_0(started, waiting: str) -> None:
    (node,) = started(NO_HANDLER_APPS[waiting], 1)
    node.wait_for("up")
    os.killpg(node.proc.pid, signal.SIGTERM)
    code, took = node.end()
    assert code == 0, node.records
    assert took < 1.0, (took, node.records)  # not the host's SIGKILL (2 s), nor the app's sleep (5 s)
    assert node.records[-1][1:] == ("info", "left gracefully")


def test_a_second_sigterm_ends_the_handlers_at_once(started) -> None:
    app = ('require "splay.base"\nevents.on_leave(function() events.sleep(10); log.info("not reached") end)\n'
           'events.run(function() log.info("up"); while true do events.sleep(1) end end)\n')
    (node,) = started(app, 1)
    node.wait_for("up")
    os.killpg(node.proc.pid, signal.SIGTERM)
    node.wait_for("leaving gracefully")
    os.killpg(node.proc.pid, signal.SIGTERM)
    code, took = node.end()
    assert code == 0 and took < 1.0, (code, took, node.records)
    assert node.texts()[-1].startswith("left at once: a second leave request")


def test_a_handler_that_never_returns_is_killed_after_the_grace_period(tmp_path: Path) -> None:
    # run_local is the host here: SIGTERM at the graceful leave, SIGKILL GRACE_S (2 s) later.
    # Node 1 stalls in its handler, node 2's handler ends in time.
    app = """require "splay.base"
events.on_leave(function()
  if job.position == 1 then
    while true do log.info("still leaving"); events.sleep(0.5) end
  end
  events.sleep(0.2)
end)
events.run(function() while true do events.sleep(1) end end)
"""
    (tmp_path / "app.lua").write_text(app)
    (tmp_path / "s.churn").write_text("at 0s join 2\nat 1s leave 2 gracefully\nat 5s stop\n")
    out = tmp_path / "out.jsonl"
    proc = subprocess.run([sys.executable, str(SANDBOX / "run_local.py"), str(tmp_path / "app.lua"),
                           "--churn", str(tmp_path / "s.churn"), "--time", "30", "--quiet", "--out", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr  # being killed after the grace period is not a failure
    records = [json.loads(line) for line in out.read_text().splitlines()]
    exits = {r["node"]: (r["code"], r["text"]) for r in records if r["kind"] == "exit"}
    assert exits == {1: (-signal.SIGKILL, "left (churn: graceful; killed after the 2 s grace period)"),
                     2: (0, "left (churn: graceful)")}
    leave_t = next(r["t"] for r in records if r["kind"] == "churn" and r["event"] == "leave")
    stalling = [r["t"] - leave_t for r in records if r.get("text") == "still leaving"]
    assert len(stalling) in (4, 5) and max(stalling) < 2.1  # it ran until the SIGKILL, not after


def _bwrap_wrap(tmp: Path) -> Callable[[Path], list[str]]:
    """The daemon's own bwrap command line for a working directory (daemon/splayd/isolation.py).
    bwrap is part of the platform (scripts/install-deps.sh): missing or unusable is a failure."""
    sys.path.insert(0, str(REPO / "daemon"))
    from splayd.isolation import bwrap_argv, probe_bwrap
    bwrap = shutil.which("bwrap")
    assert bwrap, "bwrap is required (Debian package bubblewrap, installed by scripts/install-deps.sh)"
    why = probe_bwrap(bwrap, SANDBOX, LUAJIT, tmp / "probe")
    assert why is None, f"bwrap unusable here: {why}"
    return lambda workdir: bwrap_argv(bwrap, SANDBOX, LUAJIT, workdir)


def _luajit_pids(bwrap_pid: int) -> list[int]:
    """LuaJIT under bwrap: bwrap -> bwrap (PID 1 of the node's PID namespace) -> luajit."""
    found, todo = [], [bwrap_pid]
    while todo:
        pid = todo.pop()
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            if Path(f"/proc/{child}/comm").read_text().strip() == "luajit":
                found.append(child)
            else:
                todo.append(child)
    return found


def test_under_bwrap_sigterm_must_reach_luajit_not_bwrap(started, tmp_path: Path) -> None:
    wrap = _bwrap_wrap(tmp_path)
    leaver, listener = started(GOODBYE_APP, 2, wrap)
    leaver.wait_for("up")
    listener.wait_for("up")
    # bwrap runs LuaJIT in a session of its own (--new-session) as a child of the namespace's
    # PID 1: killpg(bwrap) does not reach it. Signal LuaJIT's host pid instead.
    (luajit_pid,) = _luajit_pids(leaver.proc.pid)
    assert os.getpgid(luajit_pid) != leaver.proc.pid
    os.kill(luajit_pid, signal.SIGTERM)
    code, _ = leaver.end()
    assert code == 0, leaver.records  # bwrap passes LuaJIT's exit status on
    assert leaver.texts()[-2:] == ["bye sent", "left gracefully"]
    listener.wait_for("got bye from 1")
    # The pitfall: SIGTERM to bwrap's group kills bwrap itself, and --die-with-parent then
    # SIGKILLs the node before it could say anything.
    os.killpg(listener.proc.pid, signal.SIGTERM)
    assert listener.end()[0] == -signal.SIGTERM
    assert "left gracefully" not in listener.texts()
