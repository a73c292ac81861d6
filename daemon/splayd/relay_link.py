"""A daemon's link to the node relay (relay.py; issue 24): one outbound WebSocket carrying every
relayed TCP stream of this daemon's nodes, and the local door the runtime uses.

  link = RelayLink(url, daemon, expires, token)   # from the controller's welcome ("relay")
  await link.start()          # the local door listens on 127.0.0.1:link.port; run() dials out
  link.ticket(job, addrs, mac)                    # from `list` ("relay_ticket"); kept and resent
  await link.stop()

The door: the runtime (sandbox/lib/splaylab/socket.lua) connects to 127.0.0.1:link.port and
writes one line "JOB IP:PORT\\n" (the job address it connects to); the door answers "ok\\n" and
the socket then carries the stream, or "err MESSAGE\\n" (the relay's or the far daemon's
refusal, e.g. "connect to 10.0.0.9:20001 denied: not a node of this job") and closes.
A stream the relay opens toward this daemon is connected to 127.0.0.1 on the destination's port
(the node's server; nodes bind every interface). Datagrams: a second door, UDP on
127.0.0.1:link.udp_port (_UdpDoor); the relay names each datagram's sender by its job address.

A cut link behaves as a cut cable for the nodes: new doors wait (no answer) until the link is
back, so the runtime's connect times out as a connect whose SYNs go unanswered would, or goes
through when the link returns in time; streams already open get no more bytes, then are reset
when the link is back (the relay has closed their far side meanwhile, as a peer's TCP answers
a stale connection with RST). The link redials with backoff (0.5 s doubling to 5 s).
"""
from __future__ import annotations

import asyncio
import json
import logging
import ssl as ssl_module
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from .relay import CLOSE, DATA, DGRAM, MAX_FRAME, OPEN, OPENED, REFUSED, RETURN_TTL, frame, parse

logger = logging.getLogger("splayd.relay_link")

DOOR_LINE_MAX = 200  # bytes of the runtime's first line


class Stream:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.answer: asyncio.Future[str] | None = None  # the relay's OPENED/REFUSED, for a door
        self.open: bytes = b""  # a door's OPEN frame, sent again on a new link until answered
        self.sent_on: Any = None  # the link it was last sent on
        self.pump: asyncio.Task[None] | None = None

    def abort(self) -> None:
        if self.pump is not None:
            self.pump.cancel()
        transport = self.writer.transport
        if not transport.is_closing():
            transport.abort()  # RST, as a peer's TCP answers a connection it no longer knows


class _UdpDoor(asyncio.DatagramProtocol):
    """The door for datagrams: the runtime sends "JOB IP:PORT\n" + data from its node's port;
    datagrams from the relay are delivered to the node's port as "IP:PORT\n" + data (the
    sender's job address, which the runtime hands the app)."""

    def __init__(self, link: "RelayLink") -> None:
        self.link = link

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        head, sep, body = data.partition(b"\n")
        if not sep or len(head) > DOOR_LINE_MAX or addr[0] != "127.0.0.1":
            return
        try:
            job = int(head.split(b" ", 1)[0])
        except ValueError:
            return
        # its answers may come back to this port for a while, though it is no node's
        returns, now = self.link.returns, time.monotonic()
        if len(returns) > 10_000:
            self.link.returns = returns = {k: t for k, t in returns.items() if t > now}
        returns[(job, addr[1])] = now + RETURN_TTL
        asyncio.create_task(self.link._send(frame(DGRAM, 0, head + f" {addr[1]}\n".encode() + body)))


class RelayLink:
    def __init__(self, url: str, daemon: int, expires: int, token: str,
                 ssl: ssl_module.SSLContext | None = None) -> None:
        self.url, self.daemon, self.expires, self.token, self.ssl = url, daemon, expires, token, ssl
        self.port = 0
        self.udp_port = 0
        self.returns: dict[tuple[int, int], float] = {}  # (job, local port that sent) -> until
        self._udp: asyncio.DatagramTransport | None = None
        self.tickets: dict[int, dict[str, Any]] = {}
        self.streams: dict[int, Stream] = {}
        self.ws: ClientConnection | None = None
        self.up = asyncio.Event()
        self.connects = 0
        self._next = 0
        self._server: asyncio.Server | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._door, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        self._udp, _ = await asyncio.get_running_loop().create_datagram_endpoint(
            lambda: _UdpDoor(self), local_addr=("127.0.0.1", 0))
        self.udp_port = self._udp.get_extra_info("sockname")[1]
        self._task = asyncio.create_task(self.run())

    async def stop(self) -> None:
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
        if self.ws is not None:
            await self.ws.close()
        if self._server is not None:
            self._server.close()
        if self._udp is not None:
            self._udp.close()
        for s in list(self.streams.values()):
            s.abort()
        self.streams.clear()

    def ticket(self, job: int, addrs: list[str], mac: str) -> None:
        msg = {"type": "ticket", "job": job, "addrs": addrs, "mac": mac}
        if addrs:
            self.tickets[job] = msg
        else:
            self.tickets.pop(job, None)
        if self.ws is not None:
            asyncio.create_task(self._send_text(json.dumps(msg)))

    async def _send_text(self, text: str) -> None:
        ws = self.ws
        if ws is not None:
            try:
                await ws.send(text)
            except ConnectionClosed:
                pass

    async def _send(self, data: bytes) -> bool:
        ws = self.ws
        if ws is None:
            return False
        try:
            await ws.send(data)
            return True
        except ConnectionClosed:
            return False

    # the link --------------------------------------------------------------------------------
    async def run(self) -> None:
        delay = 0.5
        while not self._stopping:
            try:
                async with connect(self.url, ssl=self.ssl, max_size=MAX_FRAME + 64, open_timeout=5,
                                   ping_interval=2, ping_timeout=4, close_timeout=1, compression=None) as ws:
                    await ws.send(json.dumps({"type": "hello", "daemon": self.daemon, "expires": self.expires,
                                              "token": self.token}))
                    welcome = json.loads(await asyncio.wait_for(ws.recv(), 5))
                    if welcome.get("type") != "welcome":
                        raise ValueError(f"relay answered {welcome!r}")
                    self._reset_streams()  # from before the cut: the relay closed their far side
                    for msg in self.tickets.values():
                        await ws.send(json.dumps(msg))
                    self.ws = ws
                    for s in list(self.streams.values()):  # doors that waited for the link
                        if s.answer is not None and not s.answer.done() and s.sent_on is not ws:
                            s.sent_on = ws
                            await ws.send(s.open)
                    self.connects += 1
                    self.up.set()
                    delay = 0.5
                    logger.info("relay link up (%s)", self.url)
                    async for message in ws:
                        if isinstance(message, bytes):
                            await self._frame(*parse(message))
            except (OSError, asyncio.TimeoutError, WebSocketException, ValueError) as e:
                logger.warning("relay %s: %s", self.url, e or type(e).__name__)
            finally:
                self.ws = None
                self.up.clear()
            if self._stopping:
                break
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    def _reset_streams(self) -> None:
        for s in list(self.streams.values()):
            if s.answer is not None and not s.answer.done():
                continue  # a door still waiting for the link: it opens now
            s.abort()
        self.streams = {k: s for k, s in self.streams.items() if s.answer is not None and not s.answer.done()}

    async def _frame(self, kind: int, stream: int, payload: bytes) -> None:
        if kind == OPEN:
            asyncio.create_task(self._incoming(stream, payload))
            return
        if kind == DGRAM:
            head, _, data = payload.partition(b"\n")
            try:
                job_text, dst, src = head.decode().split()
                job, port = int(job_text), int(dst.rsplit(":", 1)[1])
            except ValueError:
                return
            # only to a port of this daemon's nodes of that job, or one that sent through the door
            ticket = self.tickets.get(job, {}).get("addrs") or []
            if not any(a.rsplit(":", 1)[1] == str(port) for a in ticket) and \
                    self.returns.get((job, port), 0.0) < time.monotonic():
                return
            if self._udp is not None:
                self._udp.sendto(src.encode() + b"\n" + data, ("127.0.0.1", port))
            return
        s = self.streams.get(stream)
        if s is None:
            return
        if kind in (OPENED, REFUSED) and s.answer is not None and not s.answer.done():
            # the answer line is written here, before any DATA frame that follows it
            answer = "ok" if kind == OPENED else "err " + payload.decode(errors="replace")
            s.writer.write(answer.encode() + b"\n")
            s.answer.set_result(answer)
        elif kind == DATA:
            try:
                s.writer.write(payload)
                await s.writer.drain()
            except ConnectionError:  # the node reset its socket (splay.rpc closes with RST): this
                self.streams.pop(stream, None)  # stream ends, never the link
                s.abort()
                await self._send(frame(CLOSE, stream, b"reset"))
        elif kind == CLOSE:
            self.streams.pop(stream, None)
            if s.answer is not None and not s.answer.done():
                return  # a connect never answered: left to time out, as SYNs into a cut cable
            if payload == b"reset":
                s.abort()
            else:
                s.writer.close()

    async def _incoming(self, stream: int, payload: bytes) -> None:
        try:
            port = int(json.loads(payload)["dst"].rsplit(":", 1)[1])
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
        except (OSError, ValueError, KeyError, asyncio.TimeoutError) as e:
            why = "connection refused" if isinstance(e, ConnectionRefusedError) else str(e) or type(e).__name__
            await self._send(frame(REFUSED, stream, why.encode()))
            return
        s = Stream(reader, writer)
        self.streams[stream] = s
        if await self._send(frame(OPENED, stream)):
            s.pump = asyncio.create_task(self._pump(stream, s))
        else:
            self.streams.pop(stream, None)
            s.abort()

    async def _pump(self, stream: int, s: Stream) -> None:
        """Local bytes -> the relay, until EOF (CLOSE) or the stream is dropped."""
        try:
            while True:
                data = await s.reader.read(MAX_FRAME)
                if not data:
                    break
                if not await self._send(frame(DATA, stream, data)):
                    return  # the link is cut: the stream waits silent, reset when it is back
        except (ConnectionError, asyncio.CancelledError):
            return
        if self.streams.pop(stream, None) is not None:
            await self._send(frame(CLOSE, stream))
            s.writer.close()

    # the door ----------------------------------------------------------------------------------
    async def _door(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readuntil(b"\n"), 5)
            job_text, dst = line[:DOOR_LINE_MAX].decode().split()
            job = int(job_text)
        except (ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError):
            writer.close()
            return
        self._next = (self._next + 1) % 0x80000000
        stream = self._next
        s = Stream(reader, writer)
        s.answer = asyncio.get_running_loop().create_future()
        self.streams[stream] = s
        # A cut link: no answer (the runtime's connect times out, as with SYNs nobody gets), and
        # the OPEN goes out on the next link if the runtime is still waiting then.
        s.open = frame(OPEN, stream, json.dumps({"job": job, "dst": dst}).encode())
        if self.ws is not None:
            s.sent_on = self.ws
            await self._send(s.open)
        gone = asyncio.create_task(reader.read(1))  # the runtime sends nothing before "ok": only EOF
        await asyncio.wait([s.answer, gone], return_when=asyncio.FIRST_COMPLETED)
        if not s.answer.done():  # the runtime gave up waiting (its connect timed out)
            s.answer.cancel()
            if self.streams.pop(stream, None) is not None and s.sent_on is not None:
                await self._send(frame(CLOSE, stream))
            writer.close()
            return
        gone.cancel()
        answer = s.answer.result()  # its line is written (_frame)
        if answer != "ok":
            self.streams.pop(stream, None)
            writer.close()
            return
        await writer.drain()
        s.answer = None
        s.pump = asyncio.create_task(self._pump(stream, s))


async def link_update(link: RelayLink | None, block: Any, ssl: ssl_module.SSLContext | None = None) -> RelayLink | None:
    """welcome's "relay" block ({"url", "daemon", "expires", "token"}, or none: no relay) ->
    the link to keep: the same one with the newest token (used at its next dial), a new one when
    the relay moved, None (stopped) when the controller names none."""
    if not isinstance(block, dict) or not block.get("url"):
        if link is not None:
            await link.stop()
        return None
    url, daemon, expires, token = str(block["url"]), int(block["daemon"]), int(block["expires"]), str(block["token"])
    if link is not None and link.url == url and link.daemon == daemon:
        link.expires, link.token = expires, token
        return link
    tickets = dict(link.tickets) if link is not None else {}
    if link is not None:
        await link.stop()
    link = RelayLink(url, daemon, expires, token, ssl=ssl if url.startswith("wss://") else None)
    link.tickets = tickets
    await link.start()
    return link


def relay_listed(link: RelayLink | None, job: int, block: Any) -> dict[str, Any] | None:
    """`list`'s "relay" block ({"addrs": this daemon's addresses in the job, "mac": the
    controller's ticket, "peers": [{ip, port}, ...] nodes this daemon cannot reach}) -> job.json's
    "relay" ({"port": the door, "peers"}), after handing the ticket to the link; None when there
    is no link or nothing to relay (every peer is then connected to directly)."""
    if link is None or not isinstance(block, dict):
        return None
    addrs = [str(a) for a in block.get("addrs") or []]
    if addrs:
        link.ticket(job, addrs, str(block.get("mac") or ""))
    peers = [p for p in block.get("peers") or [] if isinstance(p, dict)]
    return {"port": link.port, "udp_port": link.udp_port, "peers": peers} if peers else None
