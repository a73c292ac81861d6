"""The daemon's side of the daemon ⇄ controller protocol (docs/architecture.md).

The `controller` fixture (tests/utils.py FakeController) is a loopback websockets server that
stands in for the Django controller and plays its side of the contract; the real controller
is tested against the real daemon in /work/main/tests/. Daemons here are real (in-process
Server, or `python -m splayd` for the exit-code test) and run real luajit nodes.
"""
from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from .utils import FakeController, make_config

DAEMON_DIR = Path(__file__).resolve().parents[1]
SLEEPER = 'print("up")\nwhile true do events.sleep(0.05) end'


async def test_hello_describes_the_daemon_and_heartbeats_follow(controller: FakeController, run_daemon) -> None:
    async with run_daemon() as server:
        hello = controller.hellos[0]
        assert server.probe is not None and server.probe.port > 0
        assert hello == {
            "type": "hello", "name": "test-1", "key": "good-key", "session": None, "version": 3,
            "ip": "127.0.0.1", "max_instances": 4, "ports": [27100, 27199], "instances": [],
            "outbox_last": 0,  # the journal holds no frame yet
            "probe": {"port": server.probe.port},  # its reachability listener (splayd/reach.py)
            "sandbox": "bwrap", "labels": {},
            "limits": {"max_mem_mb": 128, "max_cpu_seconds": 5, "disk_max_size_mb": 64, "disk_max_files": 1000,
                       "max_sockets": 64, "max_send_mb": 1024, "max_receive_mb": 1024, "nice": 0,
                       "max_bandwidth_kbps": 0, "log_lines_per_second": 1000, "log_max_size_mb": 50},
            "availability": {"policy": "always", "available": True, "reason": ""},
        }
        beat = await controller.wait_until(lambda: controller.of_type("heartbeat"))
        assert beat[0]["running"] == 0 and beat[0]["load"] >= 0 and beat[0]["rtt_ms"] is None
        acked = await controller.wait_until(lambda: controller.of_type("heartbeat")[1:])
        assert 0 <= acked[0]["rtt_ms"] < 1000  # the first heartbeat's ack gave the round trip


async def test_refused_daemon_exits_non_zero_and_prints_the_reason(controller: FakeController, tmp_path: Path) -> None:
    config = tmp_path / "splayd.toml"
    config.write_text(
        f'name = "x"\ncontroller = "{controller.url}"\nkey = "wrong"\nmax_instances = 1\nports = [27200, 27201]\n'
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "splayd", "--config", str(config), cwd=DAEMON_DIR,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), 10)
    assert proc.returncode == 1
    assert "controller refused this daemon: unknown daemon key" in err.decode()
    assert len(controller.hellos) == 1  # no retry loop


async def test_bad_config_exits_2_with_the_field_named(tmp_path: Path) -> None:
    config = tmp_path / "splayd.toml"
    config.write_text('name = "x"\n')
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "splayd", "--config", str(config), cwd=DAEMON_DIR,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), 10)
    assert proc.returncode == 2
    assert "splayd.toml: controller: required field is missing" in err.decode()


async def test_register_reserves_ports_and_slots_and_refuses_beyond_them(controller: FakeController, run_daemon) -> None:
    async with run_daemon():
        first = await controller.command("register", job=1, count=3, max_mem=2**27, max_cpu=5, duration=10)
        assert first == {**first, "ok": True, "ports": [27100, 27101, 27102]}
        second = await controller.command("register", job=2, count=2, max_mem=2**27, max_cpu=5, duration=10)
        assert (second["ok"], second["reason"]) == (False, "NO_SLOTS: asked 2 slots, only 1 free of 4")
        freed = await controller.command("free", job=1, ports=[27101, 27102])
        assert freed["ok"] and freed["ports"] == [27101, 27102]
        third = await controller.command("register", job=2, count=2, max_mem=2**27, max_cpu=5, duration=10)
        assert third["ok"] and third["ports"] == [27101, 27102]


async def test_bad_commands_get_a_reason(controller: FakeController, run_daemon) -> None:
    async with run_daemon():
        reply = await controller.command("start", job=99)
        assert reply["ok"] is False and reply["reason"] == "job 99 has no reservation on this daemon"
        reply = await controller.command("list", job=99, code="", instances=[], nodes=[])
        assert reply["ok"] is False
        reply = await controller.command("register", job=1, count="many")
        assert reply["ok"] is False and "count" in reply["reason"]
        await controller.command("register", job=1, count=1)
        reply = await controller.command("list", job=1, code="", instances=[{"node": 1, "port": 1}], nodes=[])
        assert reply["ok"] is False and reply["reason"] == "port 1 is not reserved for job 1"
        reply = await controller.command("reboot", job=1)
        assert reply["ok"] is False and reply["reason"] == "unknown command 'reboot'"


async def test_a_job_runs_on_all_its_nodes_and_its_files_are_cleaned_up(
    controller: FakeController, run_daemon, tmp_path: Path
) -> None:
    code = 'print(job.position, job.me.port, #job.nodes)\nlocal x = 0\nfor i = 1, 3 do x = x + 1 end\nprint("x", x)'
    async with run_daemon():
        ports = await controller.deploy(5, code, nodes=3)
        for k in (1, 2, 3):
            final = await controller.wait_final(5, k)
            assert (final["state"], final["reason"], final["exit_code"]) == ("ENDED", "ended normally", 0)
            # every line of an instance arrives before its end state
            texts = [ln["text"] for ln in controller.lines(5, k)]
            assert texts == [f"{k}\t{ports[k - 1]}\t3", "x\t3"]  # state is per node
        await controller.wait_until(lambda: not (tmp_path / "work" / "job-5").exists())
        again = await controller.command("register", job=6, count=4)
        assert again["ok"]  # the slots came back when the instances ended


async def test_duration_is_enforced_by_the_daemon_clock(controller: FakeController, run_daemon) -> None:
    async with run_daemon():
        start = time.monotonic()
        await controller.deploy(3, SLEEPER, nodes=1, duration=1)
        final = await controller.wait_final(3, 1, timeout=5)
        assert (final["state"], final["reason"]) == ("ENDED", "killed: duration of 1 s reached")
        assert 0.9 <= time.monotonic() - start < 3


async def test_stop_kills_the_job_and_reports_killed(controller: FakeController, run_daemon, tmp_path: Path) -> None:
    async with run_daemon():
        await controller.deploy(4, SLEEPER, nodes=2)
        await controller.wait_until(lambda: len(controller.lines(4)) == 2)
        assert (tmp_path / "work" / "job-4" / "node-2" / "app.lua").read_text() == SLEEPER
        reply = await controller.command("stop", job=4)
        assert reply["ok"] is True
        for k in (1, 2):
            final = await controller.wait_final(4, k)
            assert (final["state"], final["reason"]) == ("KILLED", "stopped by the controller")
        assert not (tmp_path / "work" / "job-4").exists()


async def test_shutdown_kills_and_reports_running_instances(controller: FakeController, run_daemon) -> None:
    async with run_daemon() as server:
        await controller.deploy(8, SLEEPER, nodes=1)
        await controller.wait_until(lambda: controller.lines(8))
        pid = server.jobs.running()[0].proc.pid
    final = controller.final_state(8, 1)
    assert final is not None and (final["state"], final["reason"]) == ("KILLED", "daemon shutting down")
    assert server.exit_code == 0
    assert not Path(f"/proc/{pid}").exists()


async def test_reconnect_keeps_instances_running_and_resumes_the_session(
    controller: FakeController, run_daemon
) -> None:
    code = 'for i = 1, 1000 do print(i); events.sleep(0.05) end'
    async with run_daemon() as server:
        await controller.deploy(9, code, nodes=1, duration=20)
        await controller.wait_until(lambda: len(controller.lines(9)) >= 2)
        session = server.connection.session
        pid = server.jobs.running()[0].proc.pid
        port = controller.port

        await controller.stop()  # the controller goes away
        await asyncio.sleep(1.0)  # the node keeps printing; the daemon retries with backoff
        assert Path(f"/proc/{pid}").exists() and server.jobs.running()
        seen_before = len(controller.lines(9))

        await controller.start(port)
        await controller.wait_until(lambda: len(controller.hellos) == 2, timeout=8)
        hello = controller.hellos[1]
        assert hello["session"] == session
        assert hello["instances"] == [{"job": 9, "node": 1, "state": "RUNNING"}]
        # lines printed while disconnected were buffered and arrive, in order, without gaps
        await controller.wait_until(lambda: len(controller.lines(9)) >= seen_before + 15, timeout=5)
        seqs = [ln["seq"] for ln in controller.lines(9)]
        assert seqs == sorted(set(seqs))
        assert seqs[-1] - seqs[0] + 1 == len(seqs)
        assert server.jobs.running()[0].proc.pid == pid


async def test_daemon_keeps_retrying_while_the_controller_is_down(tmp_path: Path) -> None:
    from .utils import running_daemon

    ctrl = FakeController()
    await ctrl.start()
    port = ctrl.port
    await ctrl.stop()  # nothing listens yet
    async with running_daemon(make_config(tmp_path, f"ws://127.0.0.1:{port}/ws/daemon/")):
        await asyncio.sleep(1.2)  # attempts at ~0, 0.5, 1.5 s: refused connections, no crash
        await ctrl.start(port)
        await ctrl.wait_until(lambda: ctrl.connected.is_set(), timeout=6)
        assert ctrl.hellos[0]["session"] is None
    await ctrl.stop()


async def test_sigterm_stops_the_daemon_process_cleanly(controller: FakeController, tmp_path: Path) -> None:
    import signal

    config = tmp_path / "splayd.toml"
    config.write_text(
        f'name = "sig"\ncontroller = "{controller.url}"\nkey = "good-key"\nmax_instances = 2\n'
        f'ports = [27300, 27301]\nwork_dir = "work"\n'
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "splayd", "--config", str(config), cwd=DAEMON_DIR,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        await controller.deploy(11, SLEEPER, nodes=2)
        await controller.wait_until(lambda: len(controller.lines(11)) == 2)
        assert (tmp_path / "work" / "job-11").is_dir()
        proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(proc.communicate(), 8)
    finally:
        if proc.returncode is None:
            proc.kill()
    assert proc.returncode == 0, err.decode()
    for k in (1, 2):
        final = controller.final_state(11, k)
        assert final is not None and (final["state"], final["reason"]) == ("KILLED", "daemon shutting down")
    assert not (tmp_path / "work" / "job-11").exists()


async def test_a_listed_network_is_compiled_for_each_instance(controller: FakeController, run_daemon) -> None:
    # node 2 calls node 1 with its send time; node 1 prints the one-way delay it measured
    code = """
require "splay.base"
local rpc = require "splay.rpc"
function owd(sent) print(string.format("owd %.4f", misc.time() - sent)) end
rpc.server(job.me.port)
events.run(function()
  if job.position == 2 then
    events.sleep(0.3)
    for i = 1, 5 do rpc.call(job.nodes[1], {"owd", misc.time()}) end
  end
  events.sleep(2)
  events.exit()
end)
"""
    network = {"options": {"net": "matrix:m.csv", "file_text": "0,30\n30,0\n"}, "seed": 1, "nodes": 2}
    async with run_daemon():
        await controller.deploy(7, code, nodes=2, network=network)
        final = await controller.wait_final(7, 1)
        assert final["state"] == "ENDED", final
        assert (await controller.wait_final(7, 2))["state"] == "ENDED"
        delays = [float(ln["text"].split()[1]) for ln in controller.lines(7, 1)]
        # the first call also paid the TCP handshake's round trip (2 x 30 ms)
        assert len(delays) == 5 and 0.089 <= delays[0] <= 0.100, delays
        assert all(0.029 <= d <= 0.040 for d in delays[1:]), delays
        bad = await controller.command("register", job=8, count=1)
        assert bad["ok"]
        reply = await controller.command("list", job=8, code="", instances=[{"node": 1, "port": bad["ports"][0]}],
                                         nodes=[{"ip": "127.0.0.1", "port": bad["ports"][0]}],
                                         network={"options": {"net": "const:5"}, "seed": 1, "nodes": 1})
        assert reply["ok"] is False
        assert reply["reason"] == "network: bad delay '5': give a number and a unit, e.g. 50ms, 1.5s, 200us"
