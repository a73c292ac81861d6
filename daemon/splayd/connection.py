"""The daemon's one connection to the controller (docs/architecture.md, "Daemon ⇄ controller").

Connects OUT with the websockets client (wss:// verifies the controller's certificate against
the system's CAs or the config's `ca_file`), sends `hello` (session to resume, instances still
running, the journal's newest frame, the owner's labels, limits and availability), waits for `welcome` or `refused`, then
runs four tasks until the socket closes: receive commands (handled in order, each answered once
with its `ref`) and acks, send the outbox (from above the controller's `acked`: the journal
resends what it missed), send a heartbeat every `heartbeat` seconds, and watch the link: a link
silent for `dead_after` seconds is closed without waiting for TCP to notice. A lost connection
is retried with exponential backoff (0.5 s doubling to 5 s, ±25 % jitter); instances keep
running and their messages wait in the journal. `refused` (or close code 4001) is final.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import ssl
import time
from typing import TYPE_CHECKING, Any

import websockets
from websockets.exceptions import ConnectionClosed, WebSocketException

from . import PROTOCOL_VERSION
from .relay_link import link_update
from .config import Config
from .jobs import JobManager
from .outbox import Outbox

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

logger = logging.getLogger("splayd")

BACKOFF_MIN = 0.5
BACKOFF_MAX = 5.0
OPEN_TIMEOUT = 5.0
WELCOME_TIMEOUT = 10.0
MAX_FRAME = 16 * 1024 * 1024
REFUSED_CLOSE_CODE = 4001
COMMANDS = frozenset({"register", "free", "list", "start", "stop", "join", "blacklist", "probe"})


class Refused(Exception):
    """The controller does not accept this daemon (unknown key, ...): do not retry."""


def backoff_delays(start: float = BACKOFF_MIN, cap: float = BACKOFF_MAX):
    """0.5, 1, 2, 4, 8, 10, 10, ... each with ±25 % jitter (never above `cap`)."""
    delay = start
    while True:
        yield min(cap, delay * random.uniform(0.75, 1.25))
        delay = min(cap, delay * 2)


class Connection:
    def __init__(self, config: Config, jobs: JobManager, outbox: Outbox) -> None:
        self.config = config
        self.jobs = jobs
        self.outbox = outbox
        self.session: str | None = None
        self.daemon_id: int | None = None
        self.heartbeat = 2.0
        self.dead_after = 6.0
        self.rtt_ms: float | None = None
        self.last_received = 0.0  # time.monotonic() of the controller's last frame
        self.ws: ClientConnection | None = None
        self.probe_port = 0  # reach.ProbeListener's, once it listens (0: none, not advertised)
        self.connects = 0  # successful welcomes, for logs and tests
        self._stopping = asyncio.Event()

    @property
    def connected(self) -> bool:
        return self.ws is not None

    def hello(self) -> dict[str, Any]:
        c = self.config
        return {
            "type": "hello",
            "name": c.name,
            "key": c.key,
            "session": self.session,
            "version": PROTOCOL_VERSION,
            "ip": c.ip,
            "max_instances": c.max_instances,
            "ports": list(c.ports),
            "instances": self.jobs.hello_instances(),
            # The journal's newest frame: the controller judges instances missing from
            # `instances` only after applying the resent frames up to it (their exits first).
            "outbox_last": self.outbox.last_held(),
            "sandbox": self.jobs.isolation.backend,
            **self.jobs.hello_owner(),  # labels, limits (the owner's ceilings), availability
            **({"probe": {"port": self.probe_port}} if self.probe_port else {}),
        }

    async def run(self) -> None:
        """Stay connected until stop(); raises Refused when the controller refuses."""
        delays = backoff_delays()
        while not self._stopping.is_set():
            try:
                welcomed = await self._session()
            except Refused:
                raise
            except (OSError, asyncio.TimeoutError, WebSocketException, ValueError, KeyError) as e:
                logger.warning("controller %s: %s", self.config.controller, e or type(e).__name__)
                welcomed = False
            if self._stopping.is_set():
                break
            if welcomed:
                delays = backoff_delays()
            wait = next(delays)
            logger.info("reconnecting in %.1f s", wait)
            try:
                await asyncio.wait_for(self._stopping.wait(), wait)
            except asyncio.TimeoutError:
                pass

    async def stop(self) -> None:
        self._stopping.set()
        if self.ws is not None:
            await self.ws.close()

    async def _session(self) -> bool:
        """One connection: hello → welcome → serve until closed. True if welcomed."""
        async with websockets.connect(
            self.config.controller,
            open_timeout=OPEN_TIMEOUT,
            close_timeout=1,
            max_size=MAX_FRAME,
            ping_interval=None,  # our heartbeats and acks watch the link (_watch)
            ssl=self._ssl_context(),
        ) as ws:
            try:
                await ws.send(json.dumps(self.hello()))
                msg = json.loads(await asyncio.wait_for(ws.recv(), WELCOME_TIMEOUT))
            except ConnectionClosed as e:
                self._check_refused_close(e)
                raise
            if msg.get("type") == "refused":
                raise Refused(str(msg.get("reason") or "no reason given"))
            if msg.get("type") != "welcome":
                raise ValueError(f"expected welcome, got {msg.get('type')!r}")
            self.session = msg.get("session")
            self.daemon_id = msg.get("daemon")
            self.heartbeat = float(msg.get("heartbeat") or 2)
            self.dead_after = float(msg.get("dead_after") or 3 * self.heartbeat)
            self.jobs.set_blacklist(msg.get("blacklist") or [])
            self.jobs.relay = await link_update(self.jobs.relay, msg.get("relay"), self._ssl_context())
            self.outbox.rewind(int(msg.get("acked") or 0))
            self.last_received = time.monotonic()
            self.connects += 1
            logger.info(
                "connected to %s as daemon %s (session %s)",
                self.config.controller, self.daemon_id, self.session,
            )
            self.outbox.discard("heartbeat")
            self.ws = ws
            commands: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
            tasks = [
                asyncio.create_task(self._receive(ws, commands)),
                asyncio.create_task(self._run_commands(commands)),
                asyncio.create_task(self._send(ws)),
                asyncio.create_task(self._beat()),
                asyncio.create_task(self._watch(ws)),
            ]
            try:
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            finally:
                self.ws = None
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            for t in done:
                exc = t.exception()
                if isinstance(exc, ConnectionClosed):
                    self._check_refused_close(exc)
                    logger.warning("controller closed the connection (%s)", exc)
                elif exc is not None:
                    raise exc
            return True

    @staticmethod
    def _check_refused_close(e: ConnectionClosed) -> None:
        if e.rcvd is not None and e.rcvd.code == REFUSED_CLOSE_CODE:
            raise Refused(e.rcvd.reason or f"connection closed with code {REFUSED_CLOSE_CODE}")

    def _ssl_context(self) -> ssl.SSLContext | None:
        if not self.config.controller.startswith("wss://"):
            return None
        return ssl.create_default_context(cafile=str(self.config.ca_file) if self.config.ca_file else None)

    async def _receive(self, ws: ClientConnection, commands: asyncio.Queue[dict[str, Any]]) -> None:
        """Read every frame as it comes (the watchdog's clock, acks at once); commands go to
        `_run_commands`, so a long one (a STOP waiting for a launch) never stops the reading
        and the link is not judged dead meanwhile."""
        async for raw in ws:
            self.last_received = time.monotonic()
            try:
                msg = json.loads(raw)
                if not isinstance(msg, dict):
                    raise ValueError("not an object")
            except ValueError as e:
                logger.warning("ignoring a bad frame from the controller: %s", e)
                continue
            kind = msg.get("type")
            if kind == "ack":
                self._on_ack(msg)
            elif kind == "refused":
                raise Refused(str(msg.get("reason") or "no reason given"))
            else:
                commands.put_nowait(msg)
        if ws.close_code == REFUSED_CLOSE_CODE:
            raise Refused(ws.close_reason or f"connection closed with code {REFUSED_CLOSE_CODE}")
        logger.warning("controller closed the connection (code %s)", ws.close_code)

    async def _run_commands(self, commands: asyncio.Queue[dict[str, Any]]) -> None:
        """The controller's commands, one at a time in the order sent (list before start)."""
        while True:
            await self._dispatch(await commands.get())

    async def _dispatch(self, msg: dict[str, Any]) -> None:
        kind, ref = msg.get("type"), msg.get("ref")
        if kind not in COMMANDS:
            logger.warning("ignoring unknown message type %r", kind)
            if ref is not None:
                self.outbox.reply({"type": "reply", "ref": ref, "ok": False, "reason": f"unknown command {kind!r}"})
            return
        try:
            reply = await self.jobs.handle(msg)
        except Exception as e:  # a bug here must not kill the connection
            logger.exception("command %s failed", kind)
            reply = {"ok": False, "reason": f"daemon error: {e}"}
        logger.info("%s job=%s → %s", kind, msg.get("job"), reply)
        self.outbox.reply({"type": "reply", "ref": ref, **reply})

    async def _send(self, ws: ClientConnection) -> None:
        while True:
            msg = await self.outbox.get()
            try:
                await ws.send(json.dumps(msg))
            except BaseException:
                self.outbox.push_front(msg)
                raise

    def _on_ack(self, msg: dict[str, Any]) -> None:
        seq = msg.get("seq")
        if isinstance(seq, int):
            self.outbox.ack(seq)
        sent = msg.get("t")
        if isinstance(sent, (int, float)):
            self.rtt_ms = round(1000 * (time.monotonic() - sent), 2)

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat)
            self.outbox.discard("heartbeat")  # one waiting is enough
            self.outbox.reply({"type": "heartbeat", "running": len(self.jobs.running()),
                               "load": round(os.getloadavg()[0], 2), "t": time.monotonic(),
                               "rtt_ms": self.rtt_ms,
                               # the node relay's link: the controller relays only between daemons whose link is up
                               "relay": self.jobs.relay is not None and self.jobs.relay.up.is_set()})

    async def _watch(self, ws: ClientConnection) -> None:
        """Close a link the controller has been silent on for dead_after seconds (it acks
        every heartbeat): a cut cable or a dead NAT mapping shows up here, not in TCP."""
        while True:
            await asyncio.sleep(min(1.0, self.heartbeat / 2))
            silent = time.monotonic() - self.last_received
            if silent > self.dead_after:
                logger.warning("no frame from the controller for %.1f s: closing the link", silent)
                ws.transport.abort()  # a close handshake would wait on the dead link
                return
