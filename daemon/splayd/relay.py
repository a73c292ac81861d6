"""The node relay (issue 24; docs/decisions.md "Volunteers behind routers"): carries TCP streams
and UDP datagrams between nodes of one job whose daemons cannot reach each other, over one outbound WebSocket per
daemon (a "link"; the daemon side is relay_link.py). Standard library + websockets only, so it
runs beside the controller as its own process (`python -m splayd.relay --port P`, the secret in
SPLAYLAB_RELAY_SECRET or derived from the controller's SPLAYLAB_SECRET_KEY) and its tests drive real links over real sockets.

Who may use it is the controller's word, signed with the secret the two share (HMAC-SHA256),
so the relay needs no database:
  link token   `link_token(secret, daemon, expires)`: the controller hands it to a daemon it has
               authenticated (welcome); the link's first frame is {"type": "hello", "daemon",
               "expires", "token"}. Refused (close 4001) when wrong or expired.
  ticket       `ticket_mac(secret, daemon, job, addrs)`: the job addresses ("ip:port", every
               port of each node's range) this daemon hosts in that job, from the controller's
               instance table when it LISTs the job; the link sends {"type": "ticket", "job",
               "addrs", "mac"} (one with no addrs, and no mac, withdraws the job).
A stream: OPEN from a link names its job and a destination address; the relay passes it on only
when that link holds a ticket for the job and another link holds the destination in the same
job, else it answers REFUSED with the runtime's own message ("connect to IP:PORT denied: not a
node of this job"). The destination's link connects to its node and answers OPENED or REFUSED
(its error, e.g. "connection refused"); DATA flows both ways; CLOSE closes the stream whole
(no half-close over the relay: either side's EOF ends it). A lost
link closes every stream it carried with CLOSE "reset" to the other side, as a cut cable resets
a connection once its peer notices; its job addresses stay known, and streams opened toward
them meanwhile get no answer (the opener's connect times out) until the daemon is back.
Limit: the addresses of a job that ended while its daemon's link was down stay in memory.

Frames are binary WebSocket messages: type (1 byte), stream id (4 bytes, big endian; chosen
by the side that opens, so each link numbers its own streams and the relay maps (link, id)
pairs), payload. Control frames (hello, ticket) are text JSON.
Datagrams (DGRAM, stream 0): a node's UDP datagram to a peer of its job, the sender named by its
job address (a node's port; or its daemon's address and an ephemeral port, which may then be
answered through the relay for RETURN_TTL s, as a NAT lets replies in), dropped like UDP when a
check fails or the far link is down.
Limits: a link's frames are sent in order, so one slow receiver slows every stream
of its sender's link (websockets' write buffer is the flow control).
"""
from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import json
import logging
import os
import ssl as ssl_module
import struct
import time
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

logger = logging.getLogger("splayd.relay")

OPEN, OPENED, REFUSED, DATA, CLOSE, DGRAM = 1, 2, 3, 4, 5, 6
HEADER = struct.Struct("!BI")
MAX_FRAME = 256 * 1024  # bytes of DATA per frame (links cut larger reads)
RETURN_TTL = 60.0  # seconds a datagram's ephemeral source port may be answered through the relay
MAX_RETURNS = 100_000  # return paths kept at most (expired ones are dropped first)


def frame(kind: int, stream: int, payload: bytes = b"") -> bytes:
    return HEADER.pack(kind, stream) + payload


def parse(message: bytes) -> tuple[int, int, bytes]:
    if len(message) < HEADER.size:
        raise ValueError("relay frame shorter than its header")
    kind, stream = HEADER.unpack_from(message)
    return kind, stream, message[HEADER.size:]


def _mac(secret: bytes, text: str) -> str:
    return hmac.new(secret, text.encode(), hashlib.sha256).hexdigest()


def link_token(secret: bytes, daemon: int, expires: int) -> str:
    return _mac(secret, f"link:{int(daemon)}:{int(expires)}")


def ticket_mac(secret: bytes, daemon: int, job: int, addrs: list[str]) -> str:
    return _mac(secret, f"ticket:{int(daemon)}:{int(job)}:" + ",".join(sorted(addrs)))


def denied(dst: str) -> str:
    """The runtime's own refusal (sandbox/lib/splaylab/socket_policy_core.lua), word for word."""
    return f"connect to {dst} denied: not a node of this job"


@dataclass(eq=False)
class Link:
    ws: ServerConnection
    daemon: int
    jobs: dict[int, set[str]] = field(default_factory=dict)  # job -> addresses it hosts
    # (this link's stream id) -> (other link, its stream id)
    streams: dict[int, tuple["Link", int]] = field(default_factory=dict)
    next_id: int = 0x80000000  # ids the relay picks on this link (the link's own stay below)

    async def send(self, data: bytes) -> None:
        try:
            await self.ws.send(data)
        except ConnectionClosed:
            pass


class Relay:
    def __init__(self, secret: bytes, host: str = "0.0.0.0", port: int = 0,
                 ssl: ssl_module.SSLContext | None = None) -> None:
        self.secret, self.host, self.port, self.ssl = secret, host, port, ssl
        self.links: dict[int, Link] = {}  # daemon -> its link (a new one replaces the old)
        # (job, address) -> the daemon hosting it; kept while its link is down (see _open)
        self.owners: dict[tuple[int, str], int] = {}
        # (job, "ip:port") of a datagram's ephemeral source -> (its daemon, until): answers to it
        # pass for RETURN_TTL s, as a NAT lets replies in (splay.urpc's client socket)
        self.returns: dict[tuple[int, str], tuple[int, float]] = {}
        self.bytes_relayed = 0
        self._server: Any = None

    async def start(self) -> None:
        # pings every 2 s: a link whose cable is cut is dropped within ~6 s, and its streams' far
        # sides are reset then. No permessage-deflate: the relay would inflate and deflate every
        # byte it carries again (its CPU is shared by every daemon); apps compress if they wish.
        self._server = await serve(self._serve, self.host, self.port, max_size=MAX_FRAME + HEADER.size + 64,
                                   ping_interval=2, ping_timeout=4, close_timeout=1, compression=None,
                                   ssl=self.ssl)
        self.port = self._server.sockets[0].getsockname()[1]
        logger.info("relay listening on %s:%d", self.host, self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, ws: ServerConnection) -> None:
        try:
            hello = json.loads(await asyncio.wait_for(ws.recv(), 10))
            daemon, expires = int(hello["daemon"]), int(hello["expires"])
            good = hmac.compare_digest(str(hello.get("token", "")), link_token(self.secret, daemon, expires))
        except (ValueError, KeyError, TypeError, asyncio.TimeoutError, ConnectionClosed):
            await ws.close(4001, "relay: expected a hello")
            return
        if not good or expires < time.time():
            await ws.close(4001, "relay: link token refused")
            return
        old = self.links.get(daemon)
        link = Link(ws, daemon)
        self.links[daemon] = link
        if old is not None:
            await old.ws.close(4002, "relay: replaced by a new link of this daemon")
        await ws.send(json.dumps({"type": "welcome"}))
        logger.info("link of daemon %d up", daemon)
        try:
            async for message in ws:
                if isinstance(message, str):
                    self._control(link, json.loads(message))
                else:
                    await self._frame(link, *parse(message))
        except (ConnectionClosed, ValueError) as e:
            logger.info("link of daemon %d: %s", daemon, e)
        finally:
            await self._drop(link)

    def _control(self, link: Link, msg: dict[str, Any]) -> None:
        if msg.get("type") != "ticket":
            return
        job, addrs = int(msg["job"]), [str(a) for a in msg.get("addrs") or []]
        if addrs and not hmac.compare_digest(str(msg.get("mac", "")), ticket_mac(self.secret, link.daemon, job, addrs)):
            logger.warning("daemon %d: ticket for job %d refused (bad mac)", link.daemon, job)
            return
        for addr in link.jobs.pop(job, set()):
            if self.owners.get((job, addr)) == link.daemon:
                del self.owners[(job, addr)]
        if addrs:
            link.jobs[job] = set(addrs)
            for addr in addrs:
                self.owners[(job, addr)] = link.daemon

    async def _frame(self, link: Link, kind: int, stream: int, payload: bytes) -> None:
        if kind == OPEN:
            await self._open(link, stream, payload)
            return
        if kind == DGRAM:
            await self._datagram(link, payload)
            return
        other = link.streams.get(stream)
        if other is None:
            return  # a stream already closed on this side: its late frames are dropped
        peer, peer_stream = other
        if kind == DATA:
            self.bytes_relayed += len(payload)
        elif kind in (CLOSE, REFUSED):
            link.streams.pop(stream, None)
            peer.streams.pop(peer_stream, None)
        await peer.send(frame(kind, peer_stream, payload))

    async def _open(self, link: Link, stream: int, payload: bytes) -> None:
        try:
            req = json.loads(payload)
            job, dst = int(req["job"]), str(req["dst"])
        except (ValueError, KeyError, TypeError):
            await link.send(frame(REFUSED, stream, b"relay: malformed open"))
            return
        owner = self.owners.get((job, dst))
        if job not in link.jobs or owner is None:
            await link.send(frame(REFUSED, stream, denied(dst).encode()))
            return
        target = self.links.get(owner)
        if target is None:
            return  # its daemon's link is down: no answer, as through a cut cable (a timeout)
        target.next_id += 1
        theirs = target.next_id
        link.streams[stream] = (target, theirs)
        target.streams[theirs] = (link, stream)
        await target.send(frame(OPEN, theirs, json.dumps({"job": job, "dst": dst}).encode()))

    async def _datagram(self, link: Link, payload: bytes) -> None:
        """A datagram "JOB DST SRCPORT\n" + data: passed on as "JOB DST SRC\n" + data (SRC: the
        sender's job address) when this daemon hosts nodes of the job, DST is one of the job's
        addresses (or a return path) and the far daemon's link is up; otherwise dropped."""
        head, _, data = payload.partition(b"\n")
        try:
            job_text, dst, src_port = head.decode().split()
            job = int(job_text)
        except ValueError:
            return
        mine = link.jobs.get(job)
        if not mine:
            return  # this daemon hosts no node of that job
        now = time.monotonic()
        src = next((a for a in mine if a.rsplit(":", 1)[1] == src_port), None)
        if src is None:  # not a node's port: named by its daemon's job address, answers let back
            src = f"{next(iter(mine)).rsplit(':', 1)[0]}:{src_port}"
            if len(self.returns) >= MAX_RETURNS:
                self.returns = {k: v for k, v in self.returns.items() if v[1] > now}
            if len(self.returns) < MAX_RETURNS:
                self.returns[(job, src)] = (link.daemon, now + RETURN_TTL)
        owner = self.owners.get((job, dst))
        if owner is None and (ret := self.returns.get((job, dst))) is not None and ret[1] > now:
            owner = ret[0]
        target = self.links.get(owner) if owner is not None else None
        if target is None:
            return
        self.bytes_relayed += len(data)
        await target.send(frame(DGRAM, 0, f"{job} {dst} {src}\n".encode() + data))

    async def _drop(self, link: Link) -> None:
        if self.links.get(link.daemon) is link:
            del self.links[link.daemon]
        for peer, peer_stream in list(link.streams.values()):
            peer.streams.pop(peer_stream, None)
            await peer.send(frame(CLOSE, peer_stream, b"reset"))
        link.streams.clear()
        logger.info("link of daemon %d down", link.daemon)


def secret_from_env(env: dict[str, str] | os._Environ[str]) -> str:
    """SPLAYLAB_RELAY_SECRET, else derived from the controller's SPLAYLAB_SECRET_KEY as the
    controller's settings derive it (the stack and compose give the relay that key)."""
    if env.get("SPLAYLAB_RELAY_SECRET"):
        return env["SPLAYLAB_RELAY_SECRET"]
    key = env.get("SPLAYLAB_SECRET_KEY", "")
    if not key:
        raise SystemExit("neither SPLAYLAB_RELAY_SECRET nor SPLAYLAB_SECRET_KEY is set (the controller's)")
    return hmac.new(key.encode(), b"splaylab node relay", hashlib.sha256).hexdigest()


async def _main(port: int, host: str, certfile: str, keyfile: str) -> None:
    context = None
    if certfile:  # wss://: the link token travels encrypted (the controller's own certificate will do)
        context = ssl_module.SSLContext(ssl_module.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certfile, keyfile or None)
    relay = Relay(secret_from_env(os.environ).encode(), host, port, ssl=context)
    await relay.start()
    await asyncio.Event().wait()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m splayd.relay", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8771)
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--certfile", default="", help="serve wss:// with this certificate (PEM)")
    parser.add_argument("--keyfile", default="", help="its key (PEM)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(_main(args.port, args.host, args.certfile, args.keyfile))


if __name__ == "__main__":
    main()
