"""Reachability probes (splayd/reach.py) over real sockets: a daemon's probe listener answers
with its name over TCP and UDP, the `probe` command tries every target and says why one
cannot be reached (refused, silent, another daemon at that address)."""
from __future__ import annotations

import asyncio
import socket
from typing import Any, AsyncIterator

import pytest

from splayd.reach import ProbeListener, probe_command

from .utils import FakeController


@pytest.fixture
async def listeners() -> AsyncIterator[list[ProbeListener]]:
    started = [ProbeListener("lab-a", host="127.0.0.1"), ProbeListener("lab-b", host="127.0.0.1")]
    for p in started:
        await p.start()
    yield started
    for p in started:
        await p.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_listener_answers_its_name_over_tcp_and_udp(listeners: list[ProbeListener]) -> None:
    a, b = listeners
    reply = await probe_command({"targets": [{"daemon": 1, "name": "lab-a", "ip": "127.0.0.1", "port": a.port},
                                             {"daemon": 2, "name": "lab-b", "ip": "127.0.0.1", "port": b.port}],
                                 "timeout": 2})
    assert reply["ok"]
    for result, daemon in zip(reply["results"], (1, 2)):
        assert result["daemon"] == daemon
        assert (result["tcp"], result["tcp_error"], result["udp"], result["udp_error"]) == (True, "", True, "")
        assert 0 < result["tcp_ms"] < 2000


async def test_another_daemon_at_the_address_is_not_a_reach(listeners: list[ProbeListener]) -> None:
    """Two home networks may both hold 192.168.1.10: reaching the wrong one is not reaching."""
    _, b = listeners
    [result] = (await probe_command({"targets": [{"daemon": 1, "name": "lab-a", "ip": "127.0.0.1",
                                                   "port": b.port}], "timeout": 1}))["results"]
    why = "reached daemon 'lab-b', not 'lab-a' (same address on another network)"
    assert (result["tcp"], result["tcp_ms"], result["tcp_error"]) == (False, None, why)
    assert (result["udp"], result["udp_error"]) == (False, why)


async def test_a_closed_port_is_refused_at_once() -> None:
    port = free_port()
    loop = asyncio.get_running_loop()
    started = loop.time()
    [result] = (await probe_command({"targets": [{"daemon": 3, "name": "lab-c", "ip": "127.0.0.1", "port": port}],
                                     "timeout": 3}))["results"]
    assert (result["tcp"], result["tcp_error"]) == (False, "Connection refused")
    assert (result["udp"], result["udp_error"]) == (False, "Connection refused")  # ICMP port unreachable
    assert loop.time() - started < 2.5  # not the timeout: the refusal itself


async def test_a_silent_address_times_out() -> None:
    """What a NAT without port forwarding looks like from outside: SYNs and datagrams dropped.
    Here: a server that accepts but never answers, and a UDP socket that never echoes."""
    async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(5)
        writer.close()

    server = await asyncio.start_server(mute, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", port))
    try:
        [result] = (await probe_command({"targets": [{"daemon": 4, "name": "lab-d", "ip": "127.0.0.1",
                                                       "port": port}], "timeout": 0.4}))["results"]
    finally:
        udp.close()
        server.close()
    assert result == {"daemon": 4, "tcp": False, "tcp_ms": None, "tcp_error": "no answer within 0.4 s",
                      "udp": False, "udp_error": "no answer within 0.4 s"}


@pytest.mark.parametrize("cmd, why", [
    ({"targets": "all"}, "targets: expected a list of at most 1000 daemons"),
    ({"targets": [], "timeout": 0}, "timeout: expected seconds in (0, 10], got 0"),
    ({"targets": [{"name": "x", "ip": "127.0.0.1", "port": 0}]}, "targets[0]: expected {daemon, name, ip, port}"),
])
async def test_a_bad_probe_command_is_refused(controller: FakeController, run_daemon: Any, cmd: dict, why: str) -> None:
    async with run_daemon() as server:  # JobManager's reply (the fake's command() has a `timeout` of its own)
        reply = await server.jobs.handle({"type": "probe", **cmd})
    assert not reply["ok"] and reply["reason"].startswith(why), reply


async def test_a_daemon_advertises_its_listener_and_probes_on_command(controller: FakeController,
                                                                      run_daemon: Any) -> None:
    async with run_daemon():
        port = controller.hellos[-1]["probe"]["port"]
        assert isinstance(port, int) and port > 0
        reply = await controller.command("probe", targets=[
            {"daemon": 7, "name": "test-1", "ip": "127.0.0.1", "port": port}], timeout=2)
    assert reply["ok"], reply
    [result] = reply["results"]
    assert (result["daemon"], result["tcp"], result["udp"]) == (7, True, True), result


def test_probe_port_is_checked(tmp_path: Any) -> None:
    from splayd.config import ConfigError

    from .utils import make_config

    assert make_config(tmp_path, "ws://127.0.0.1:1/", probe_port=27300).probe_port == 27300
    with pytest.raises(ConfigError, match=r"test.toml: probe_port: expected 0 \(any free port\) or a port up to "
                                          r"65535 outside ports 27100-27199, got 27150"):
        make_config(tmp_path, "ws://127.0.0.1:1/", probe_port=27150)
