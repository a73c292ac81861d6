"""What the node relay costs (issue 24; docs/volunteer.md "Behind a router"): the same exchanges
between two "nodes" on this machine, directly and through the relay (splayd/relay.py, two
daemon links splayd/relay_link.py, the runtime's door protocol), all real sockets:
  - connect + call: a new TCP stream, one 64-byte request, one 64-byte answer (splay.rpc's
    pattern when it has no open connection to the peer), median and p90 over N;
  - call: a request/answer round trip on an open stream, median and p90 over N;
  - throughput: MB bytes one way, then a 1-byte acknowledgment (MB/s);
  - the controller's bandwidth: bytes on the relay's sockets (both links, both directions,
    counted by a forwarder in front of the relay) per byte of payload.
Loopback only: the figures are the relay's own work (framing, two extra hops through asyncio
processes' event loops), not a network's; over a WAN add a round trip to the relay per hop.
The relay and the links run in this one process (one event loop), as one relay serves many
daemons; the far node is an asyncio echo server.

    .venv/bin/python bench/relay_rtt.py [N] [MB]      (default: 2000 calls, 64 MB)
"""
from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

from splayd.relay import Relay, link_token, ticket_mac  # noqa: E402
from splayd.relay_link import RelayLink  # noqa: E402

SECRET = b"bench"
JOB = 1
MSG = b"x" * 63 + b"\n"


class Counter:
    """A forwarder in front of the relay counting every byte both ways (the controller's wire)."""

    def __init__(self, to: int) -> None:
        self.to, self.bytes, self.port = to, 0, 0

    async def start(self) -> None:
        server = await asyncio.start_server(self._conn, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]

    async def _conn(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_r, up_w = await asyncio.open_connection("127.0.0.1", self.to)

        async def pump(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            while data := await r.read(262144):
                self.bytes += len(data)
                w.write(data)
                await w.drain()
            w.close()
        await asyncio.gather(pump(reader, up_w), pump(up_r, writer), return_exceptions=True)


async def serve_node() -> int:
    """The far node: answers each line with a line; a stream starting with 'S' is a sink that
    answers one byte after `n` bytes (n in its first line)."""
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        first = await reader.readline()
        if first.startswith(b"S"):
            left = int(first[1:])
            while left > 0:
                left -= len(await reader.read(min(left, 262144)))
            writer.write(b"k")
            await writer.drain()
        else:
            line = first
            while line:
                writer.write(line)
                await writer.drain()
                line = await reader.readline()
        writer.close()
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return int(server.sockets[0].getsockname()[1])


async def open_direct(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port)


def opener(link: RelayLink, dst: str):
    async def open_relayed(_port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection("127.0.0.1", link.port)
        writer.write(f"{JOB} {dst}\n".encode())
        answer = await reader.readline()
        assert answer == b"ok\n", answer
        return reader, writer
    return open_relayed


async def measure(open_stream, port: int, n: int, mb: int) -> dict[str, float]:
    connect_call = []
    for _ in range(n // 4):
        t0 = time.perf_counter()
        reader, writer = await open_stream(port)
        writer.write(MSG)
        await reader.readline()
        connect_call.append(time.perf_counter() - t0)
        writer.close()
    reader, writer = await open_stream(port)
    calls = []
    for _ in range(n):
        t0 = time.perf_counter()
        writer.write(MSG)
        await reader.readline()
        calls.append(time.perf_counter() - t0)
    writer.close()
    size = mb * 1024 * 1024
    chunk = os.urandom(65536)  # incompressible, as most payloads are to a compressor
    reader, writer = await open_stream(port)
    t0 = time.perf_counter()
    writer.write(f"S{size}\n".encode())
    for _ in range(size // len(chunk)):
        writer.write(chunk)
        await writer.drain()
    await reader.readexactly(1)
    elapsed = time.perf_counter() - t0
    writer.close()

    def q(xs: list[float], p: float) -> float:
        return sorted(xs)[int(p * (len(xs) - 1))] * 1000
    return {"connect+call ms": statistics.median(connect_call) * 1000, "connect+call p90": q(connect_call, 0.9),
            "call ms": statistics.median(calls) * 1000, "call p90": q(calls, 0.9), "MB/s": mb / elapsed}


async def main(n: int, mb: int) -> None:
    relay = Relay(SECRET, "127.0.0.1", 0)
    await relay.start()
    counter = Counter(relay.port)
    await counter.start()
    expires = int(time.time()) + 3600
    a, b = (RelayLink(f"ws://127.0.0.1:{counter.port}/", d, expires, link_token(SECRET, d, expires)) for d in (1, 2))
    for link in (a, b):
        await link.start()
        await link.up.wait()
    port = await serve_node()
    dst = f"198.51.100.2:{port}"
    a.ticket(JOB, ["198.51.100.1:20000"], ticket_mac(SECRET, 1, JOB, ["198.51.100.1:20000"]))
    b.ticket(JOB, [dst], ticket_mac(SECRET, 2, JOB, [dst]))
    await asyncio.sleep(0.2)
    direct = await measure(open_direct, port, n, mb)
    before, payload_before = counter.bytes, relay.bytes_relayed
    relayed = await measure(opener(a, dst), port, n, mb)
    wire, payload = counter.bytes - before, relay.bytes_relayed - payload_before
    print(f"{n} calls, {n // 4} connect+call, {mb} MB one way; loopback")
    for key in direct:
        print(f"  {key:<18} direct {direct[key]:9.3f}   relayed {relayed[key]:9.3f}")
    print(f"  controller's wire: {wire:,} bytes for {payload:,} bytes of relayed payload "
          f"({wire / payload:.2f} per payload byte: in from one link, out to the other)")
    for link in (a, b):
        await link.stop()
    await relay.stop()


if __name__ == "__main__":
    args = [int(x) for x in sys.argv[1:]]
    asyncio.run(main(args[0] if args else 2000, args[1] if len(args) > 1 else 64))
