"""The node relay (splayd/relay.py) and a daemon's link to it (splayd/relay_link.py) over real
sockets: two daemons' links, each node a real TCP endpoint on 127.0.0.1, streams through the
relay's door; refusals word for word as the runtime's; a cut and restored relay."""
from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from splayd.relay import Relay, link_token, ticket_mac
from splayd.relay_link import RelayLink

SECRET = b"relay-test-secret"
JOB = 7
A_IP, B_IP = "198.51.100.1", "198.51.100.2"  # the daemons' job addresses (routers: unreachable)


async def echo_server() -> tuple[asyncio.Server, int]:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.close()
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


def make_link(relay: Relay, daemon: int, secret: bytes = SECRET) -> RelayLink:
    expires = int(time.time()) + 3600
    return RelayLink(f"ws://127.0.0.1:{relay.port}/", daemon, expires, link_token(secret, daemon, expires))


def give_ticket(link: RelayLink, addrs: list[str], job: int = JOB) -> None:
    link.ticket(job, addrs, ticket_mac(SECRET, link.daemon, job, addrs))


async def nothing_from_door(sock, link: RelayLink, seconds: float) -> None:
    """No datagram comes to sock from link's UDP door within `seconds`. A datagram from any other
    source is no delivery of the relay's (on a machine running the whole suite, a process of an
    earlier test may still send to a port the kernel has since given this socket): not counted."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while (left := deadline - loop.time()) > 0:
        try:
            data, addr = await asyncio.wait_for(loop.sock_recvfrom(sock, 2048), left)
        except asyncio.TimeoutError:
            return
        assert addr != ("127.0.0.1", link.udp_port), f"the relay delivered {data!r}"


async def door(link: RelayLink, dst: str, job: int = JOB,
               wait: float = 10) -> tuple[str, asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", link.port)
    writer.write(f"{job} {dst}\n".encode())
    answer = (await asyncio.wait_for(reader.readline(), wait)).decode().rstrip("\n")
    return answer, reader, writer


@pytest.fixture
async def two() -> AsyncIterator[tuple[Relay, RelayLink, RelayLink, int]]:
    relay = Relay(SECRET, "127.0.0.1", 0)
    await relay.start()
    server, port = await echo_server()  # node 2 of the job, on daemon B
    a, b = make_link(relay, 1), make_link(relay, 2)
    for link in (a, b):
        await link.start()
        await asyncio.wait_for(link.up.wait(), 5)
    give_ticket(a, [f"{A_IP}:20000"])
    give_ticket(b, [f"{B_IP}:{port}"])
    await asyncio.sleep(0.2)
    yield relay, a, b, port
    for link in (a, b):
        await link.stop()
    server.close()
    await relay.stop()


async def test_a_stream_between_two_daemons_links_carries_bytes_both_ways(two) -> None:
    relay, a, _, port = two
    answer, reader, writer = await door(a, f"{B_IP}:{port}")
    assert answer == "ok"
    payload = bytes(range(256)) * 2000  # 512 KB: more than one frame
    writer.write(payload)
    await writer.drain()
    got = await asyncio.wait_for(reader.readexactly(len(payload)), 10)
    assert got == payload
    assert relay.bytes_relayed == 2 * len(payload)
    writer.close()


async def test_an_address_outside_the_job_is_refused_with_the_runtimes_message(two) -> None:
    _, a, b, port = two
    for dst, job in ((f"{B_IP}:{port + 1}", JOB), ("203.0.113.5:20000", JOB), (f"{B_IP}:{port}", JOB + 1)):
        answer, reader, _ = await door(a, dst, job)
        assert answer == f"err connect to {dst} denied: not a node of this job"
        assert await reader.read() == b""
    # a ticket whose mac the controller did not make is ignored
    b.ticket(JOB + 2, [f"{B_IP}:{port}"], "0" * 64)
    a.ticket(JOB + 2, [f"{A_IP}:20000"], ticket_mac(SECRET, 1, JOB + 2, [f"{A_IP}:20000"]))
    await asyncio.sleep(0.1)
    answer, _, _ = await door(a, f"{B_IP}:{port}", JOB + 2)
    assert answer == f"err connect to {B_IP}:{port} denied: not a node of this job"


async def test_a_node_that_does_not_listen_is_refused_as_a_direct_connect_is(two) -> None:
    _, a, b, _ = two
    server, closed_port = await echo_server()
    server.close()
    await server.wait_closed()
    give_ticket(b, [f"{B_IP}:{closed_port}"])
    await asyncio.sleep(0.1)
    answer, _, _ = await door(a, f"{B_IP}:{closed_port}")
    assert answer == "err connection refused"


async def test_a_link_without_the_controllers_token_is_refused() -> None:
    relay = Relay(SECRET, "127.0.0.1", 0)
    await relay.start()
    try:
        for daemon, expires, token in ((1, int(time.time()) + 60, "bad"),
                                       (1, int(time.time()) - 1, link_token(SECRET, 1, int(time.time()) - 1)),
                                       (2, int(time.time()) + 60, link_token(SECRET, 1, int(time.time()) + 60))):
            async with connect(f"ws://127.0.0.1:{relay.port}/") as ws:
                await ws.send(f'{{"type": "hello", "daemon": {daemon}, "expires": {expires}, "token": "{token}"}}')
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.recv()
                assert closed.value.rcvd.code == 4001
    finally:
        await relay.stop()


class Cable:
    """A TCP forwarder between a link and the relay that can be cut: while cut, bytes both ways
    (new connections' too) are held, as TCP holds them while a cable is unplugged (retransmitted
    once it is back); nothing is closed by the cable itself."""

    def __init__(self, port: int) -> None:
        self.to = port
        self.flowing = asyncio.Event()
        self.flowing.set()
        self.server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._conn, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _conn(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.to)
        except OSError:
            writer.close()
            return

        async def pump(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            try:
                while data := await r.read(65536):
                    await self.flowing.wait()
                    w.write(data)
                    await w.drain()
            except ConnectionError:
                pass
            w.close()
        await asyncio.gather(pump(reader, up_w), pump(up_r, writer))

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()


async def test_a_cut_link_leaves_connects_unanswered_resets_open_streams_and_comes_back(two) -> None:
    relay, _, b, port = two
    cable = Cable(relay.port)
    await cable.start()
    expires = int(time.time()) + 3600
    a = RelayLink(f"ws://127.0.0.1:{cable.port}/", 3, expires, link_token(SECRET, 3, expires))
    await a.start()
    try:
        await asyncio.wait_for(a.up.wait(), 5)
        give_ticket(a, [f"{A_IP}:20001"])
        await asyncio.sleep(0.2)
        answer, reader, writer = await door(a, f"{B_IP}:{port}")
        assert answer == "ok"
        writer.write(b"before\n")
        assert await asyncio.wait_for(reader.readline(), 5) == b"before\n"
        cable.flowing.clear()  # cut
        t0 = time.monotonic()
        writer.write(b"lost\n")  # held, as by a cut cable: no error, no answer
        await writer.drain()
        waiting = asyncio.create_task(door(a, f"{B_IP}:{port}", wait=30))  # a connect meanwhile: no answer
        while a.up.is_set() and time.monotonic() - t0 < 15:  # pings (2 s) unanswered for 4 s
            await asyncio.sleep(0.1)
        assert not a.up.is_set() and not waiting.done()
        # the relay dropped the link: a connect toward its nodes gets no answer either (no refusal)
        toward = asyncio.create_task(door(b, f"{A_IP}:20001", wait=30))
        await asyncio.sleep(1.0)
        assert not toward.done()
        toward.cancel()
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(reader.readline()), 0.5)
        cable.flowing.set()  # plugged back
        answer2, reader2, writer2 = await asyncio.wait_for(waiting, 20)  # the connect goes through
        assert answer2 == "ok"
        writer2.write(b"after\n")
        assert await asyncio.wait_for(reader2.readline(), 5) == b"after\n"
        # the stream from before the cut was reset when the link came back
        with pytest.raises((ConnectionResetError, asyncio.IncompleteReadError)):
            await asyncio.wait_for(reader.readexactly(1), 5)
        assert a.connects == 2 and b.connects == 1
        writer2.close()
    finally:
        await a.stop()
        await cable.stop()


async def test_datagrams_between_node_ports_cross_the_relay_named_by_job_addresses(two) -> None:
    import socket
    _, a, b, _ = two
    loop = asyncio.get_running_loop()
    socks = []
    for _ in range(2):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        s.setblocking(False)
        socks.append(s)
    na, nb = socks
    pa, pb = na.getsockname()[1], nb.getsockname()[1]
    job = JOB + 5
    give_ticket(a, [f"{A_IP}:{pa}"], job)
    give_ticket(b, [f"{B_IP}:{pb}"], job)
    await asyncio.sleep(0.2)
    await loop.sock_sendto(na, f"{job} {B_IP}:{pb}\n".encode() + b"hello", ("127.0.0.1", a.udp_port))
    data, addr = await asyncio.wait_for(loop.sock_recvfrom(nb, 2048), 5)
    assert (data, addr) == (f"{A_IP}:{pa}\n".encode() + b"hello", ("127.0.0.1", b.udp_port))
    await loop.sock_sendto(nb, f"{job} {A_IP}:{pa}\n".encode() + b"back", ("127.0.0.1", b.udp_port))
    data, _ = await asyncio.wait_for(loop.sock_recvfrom(na, 2048), 5)
    assert data == f"{B_IP}:{pb}\n".encode() + b"back"
    # from a port that is no node's (an ephemeral client socket): named by the daemon's job
    # address and that port, and its answer comes back through the relay
    eph = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    eph.bind(("127.0.0.1", 0))
    eph.setblocking(False)
    pe = eph.getsockname()[1]
    await loop.sock_sendto(eph, f"{job} {B_IP}:{pb}\n".encode() + b"ask", ("127.0.0.1", a.udp_port))
    data, _ = await asyncio.wait_for(loop.sock_recvfrom(nb, 2048), 5)
    assert data == f"{A_IP}:{pe}\n".encode() + b"ask"
    await loop.sock_sendto(nb, f"{job} {A_IP}:{pe}\n".encode() + b"answer", ("127.0.0.1", b.udp_port))
    data, _ = await asyncio.wait_for(loop.sock_recvfrom(eph, 2048), 5)
    assert data == f"{B_IP}:{pb}\n".encode() + b"answer"
    eph.close()
    # ...but no other port of that daemon is reachable that way
    await loop.sock_sendto(nb, f"{job} {A_IP}:{pe + 1}\n".encode() + b"probe", ("127.0.0.1", b.udp_port))
    await nothing_from_door(na, a, 0.5)
    # to an address outside the job, or of another job: dropped, as UDP drops
    for line in (f"{job} {B_IP}:{pb + 1}", f"{JOB} {B_IP}:{pb}"):
        await loop.sock_sendto(na, f"{line}\n".encode() + b"lost", ("127.0.0.1", a.udp_port))
    await nothing_from_door(nb, b, 0.5)
    for s in socks:
        s.close()


async def test_over_tls_a_link_that_trusts_the_relays_certificate_carries_streams_and_others_get_nothing(
        tmp_path) -> None:
    import ssl
    import subprocess
    cert, key = tmp_path / "relay.pem", tmp_path / "relay.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=relay",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(cert, key)
    relay = Relay(SECRET, "127.0.0.1", 0, ssl=server_ctx)
    await relay.start()
    server, port = await echo_server()
    expires = int(time.time()) + 3600
    trusting = ssl.create_default_context(cafile=str(cert))
    a, b = (RelayLink(f"wss://127.0.0.1:{relay.port}/", d, expires, link_token(SECRET, d, expires), ssl=trusting)
            for d in (1, 2))
    stranger = RelayLink(f"wss://127.0.0.1:{relay.port}/", 3, expires, link_token(SECRET, 3, expires),
                         ssl=ssl.create_default_context())  # the system's CAs: not this certificate
    try:
        for link in (a, b, stranger):
            await link.start()
        await asyncio.wait_for(asyncio.gather(a.up.wait(), b.up.wait()), 5)
        give_ticket(a, [f"{A_IP}:20000"])
        give_ticket(b, [f"{B_IP}:{port}"])
        await asyncio.sleep(0.2)
        answer, reader, writer = await door(a, f"{B_IP}:{port}")
        assert answer == "ok"
        writer.write(b"over tls\n")
        assert await asyncio.wait_for(reader.readline(), 5) == b"over tls\n"
        writer.close()
        assert not stranger.up.is_set() and 3 not in relay.links
    finally:
        for link in (a, b, stranger):
            await link.stop()
        server.close()
        await relay.stop()


async def test_a_node_that_resets_its_stream_ends_that_stream_only(two) -> None:
    import socket
    import struct

    async def reset_at_once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1)  # then close with RST (SO_LINGER 0), as splay.rpc closes its sockets
        writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()
    _, a, b, _ = two
    resets = await asyncio.start_server(reset_at_once, "127.0.0.1", 0)
    rport = resets.sockets[0].getsockname()[1]
    give_ticket(b, [f"{B_IP}:{rport}"])
    await asyncio.sleep(0.1)
    answer, reader, writer = await door(a, f"{B_IP}:{rport}")
    assert answer == "ok"
    for _ in range(20):  # bytes toward the reset socket: the far daemon's write fails
        try:
            writer.write(b"x" * 65536)
            await writer.drain()
        except ConnectionError:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)
    assert b.up.is_set() and b.connects == 1 and a.connects == 1  # the links stayed up
    resets.close()
