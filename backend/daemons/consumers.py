"""DaemonConsumer: one per connected splayd on /ws/daemon/ (protocol in
docs/architecture.md). It authenticates the hello, forwards `daemon.command` messages from
the channel layer to the socket, relays `reply` frames back to the waiting task, and turns
`log`/`instance`/`heartbeat`/`availability` frames into service calls.

Sessions: numbered frames (`o`) at or below the last one processed are skipped (resent after a
reconnection), the last one processed is acked to the daemon (every heartbeat, and at most
every ACK_EVERY while frames come) and saved with the contact (Daemon.acked_seq, at most every
TOUCH_EVERY), so a new connection, even to a restarted controller, resumes from there. A
watchdog closes a link silent for SPLAYLAB_DAEMON_DEAD_AFTER seconds, and one that has not
said hello within SPLAYLAB_DAEMON_HELLO_TIMEOUT.

Journal first: the instances a hello does not account for are judged only once the frames the
daemon held at hello (its `outbox_last`) are applied, so resent exits decide (services.Unlisted).
A frame is data, never a crash: one the controller cannot store is still acked and recorded as
an error line of its nodes (frames.frame_unstorable_record); only a database or channel layer
that cannot be reached leaves it unacked, and the link is closed so the daemon resends it."""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from redis.exceptions import RedisError

from logs.frames import UNREACHABLE
from logs.publisher import log_lines_publish, metric_chunks_publish

from .commands import daemon_group
from .frames import frame_unstorable_record, hello_accept, instance_frame_apply, log_frame_ingest, logs_frame_ingest
from .payloads import DaemonCloseMessage, DaemonCommandMessage, DaemonReplyMessage, DaemonRevokeMessage
from .reachability import reachability_probe_soon
from .relay import relay_welcome
from .services import (
    Contact,
    Unlisted,
    daemon_availability_set,
    daemon_disconnect,
    daemon_unlisted_lose,
    daemons_touch,
)

logger = logging.getLogger(__name__)

CLOSE_REFUSED = 4001
CLOSE_REPLACED = 4002
CLOSE_NO_HELLO = 4008  # not `refused`: a daemon that was merely slow may dial again
CLOSE_UNAVAILABLE = 1011  # the database or channel layer is away: the daemon resends later
# (whatever else a frame raises, it is data the controller cannot store: acked, recorded)
AWAY = UNREACHABLE + (RedisError, OSError)
OFF_THREAD = {"thread_sensitive": False}  # the hot path, off Channels' one shared database thread
TOUCH_EVERY = 1.0  # seconds between two writes of the contacts this process heard
ACK_EVERY = 0.5  # seconds: acks while frames come (every heartbeat is acked too)


class ContactBook:
    """The contacts this web process heard, written in one statement every TOUCH_EVERY
    (services.daemons_touch): a consumer only notes them, never waits on the database for it."""

    def __init__(self) -> None:
        self.pending: dict[int, Contact] = {}
        self.task: asyncio.Task[None] | None = None

    def note(self, contact: Contact) -> None:
        self.pending[contact.daemon_id] = contact
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.task = loop.create_task(self.flush_while_pending())

    async def flush_while_pending(self) -> None:
        while self.pending:
            await asyncio.sleep(TOUCH_EVERY)
            batch, self.pending = list(self.pending.values()), {}
            try:
                await database_sync_to_async(daemons_touch)(contacts=batch)
            except Exception:  # a database hiccup must not stop later contacts
                logger.exception("recording %d daemons' contacts failed", len(batch))


CONTACTS = ContactBook()


class DaemonConsumer(AsyncJsonWebsocketConsumer):
    daemon_id: int | None = None
    daemon_name: str = ""

    async def connect(self) -> None:
        self.pending: dict[str, str] = {}  # command ref → reply_to channel
        self.nodes: dict[int, set[int]] = {}  # job → nodes this daemon may log for
        self.last_frame = time.monotonic()
        self.acked = 0  # the last numbered frame processed
        self.last_ack = 0.0
        self.health: dict[str, float] = {}  # load, rtt_ms of the last heartbeat
        self.relay_up: bool | None = None  # its node relay link, as the last heartbeat said
        self.watchdog: asyncio.Task[None] | None = None
        self.unlisted: Unlisted | None = None  # the hello's verdict, waiting for the replay
        self.said_hello = False
        self.closed = False
        self.probe_queueing: asyncio.Task[bool] | None = None  # the hello's probe round, being queued
        await self.accept()
        self.hello_timer = asyncio.create_task(self.wait_hello())

    async def wait_hello(self) -> None:
        """Close a connection that never says hello (it would hold a socket for good)."""
        await asyncio.sleep(settings.SPLAYLAB_DAEMON_HELLO_TIMEOUT)
        if not self.said_hello and not self.closed:
            logger.warning("daemon connection from %s said no hello within %g s: closing it",
                           self._peer(), settings.SPLAYLAB_DAEMON_HELLO_TIMEOUT)
            self.closed = True
            await self.close(code=CLOSE_NO_HELLO)

    def _peer(self) -> str | None:
        client = self.scope.get("client")
        return str(client[0]) if client else None

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None,
                      **kwargs: Any) -> None:
        if text_data:  # binary frames are not part of the protocol: ignore, do not crash
            await super().receive(text_data=text_data, **kwargs)

    @classmethod
    async def decode_json(cls, text_data: str) -> Any:
        try:
            return json.loads(text_data)
        except (ValueError, RecursionError):  # deep nesting too: ignored like any non-object frame
            return None

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if not isinstance(content, dict) or self.closed:
            return
        self.last_frame = time.monotonic()
        if self.daemon_id is None:
            self.said_hello = True
            try:
                await self.on_hello(content)
            except AWAY as exc:
                await self.unavailable("hello", exc)
            return
        kind = content.get("type")
        handler = {"heartbeat": self.on_heartbeat, "reply": self.on_reply, "log": self.on_log, "logs": self.on_logs,
                   "instance": self.on_instance, "availability": self.on_availability,
                   }.get(kind if isinstance(kind, str) else "")
        number = content.get("o")
        numbered = isinstance(number, int) and not isinstance(number, bool)
        if numbered and number <= self.acked:
            handler = None  # sent again after a reconnection: already applied
        elif not numbered and handler is None:
            logger.warning("daemon %s sent unknown frame type %r", self.daemon_name, kind)
        if handler is not None:
            try:
                await handler(content)
            except AWAY as exc:
                await self.unavailable(f"{kind} frame {number}", exc)  # not acked: resent later
                return
            except Exception as exc:  # noqa: BLE001 - data the controller cannot store: never block
                await self.on_unstorable(content, exc)
        if numbered and number > self.acked:
            self.acked = number
            if self.unlisted is not None and number >= self.unlisted.replay_until:
                try:
                    await self.judge_unlisted()
                except UNREACHABLE as exc:  # the next hello judges again
                    await self.unavailable("the hello's verdict", exc)
                    return
        CONTACTS.note(Contact(self.daemon_id, self.channel_name, self.acked,
                              self.health.get("load"), self.health.get("rtt_ms"), self.relay_up))
        if self.acked and time.monotonic() - self.last_ack >= ACK_EVERY:
            await self.send_ack()

    async def unavailable(self, what: str, exc: BaseException) -> None:
        """The database or Redis is away: close the link unacked; the daemon dials again
        (with backoff) and resends from its journal once the controller is whole."""
        logger.warning("daemon %s: %s not processed (%s: %s): closing the link, the daemon will resend",
                       self.daemon_name or self._peer(), what, type(exc).__name__, exc)
        self.closed = True
        await self.close(code=CLOSE_UNAVAILABLE)

    async def on_unstorable(self, content: dict[str, Any], exc: Exception) -> None:
        logger.exception("daemon %s: %s frame %s cannot be stored; acked, recorded on its nodes",
                         self.daemon_name, content.get("type"), content.get("o"))
        why = f"{type(exc).__name__}: {str(exc)[:300]}"
        # a `logs` frame: each of its batches as the `log` frame it stands for
        parts = ([{**b, "type": "log"} for b in content.get("batches") or () if isinstance(b, dict)]
                 if content.get("type") == "logs" else [content])
        for part in parts:
            try:
                notes = await database_sync_to_async(frame_unstorable_record, **OFF_THREAD)(
                    daemon_id=self.daemon_id, content=part, error=why)
                job = part.get("job")
                if notes and isinstance(job, int):
                    await log_lines_publish(job, notes)
            except Exception:  # noqa: BLE001 - the frame stays acked: the journal must move on
                logger.exception("daemon %s: recording an unstorable frame failed too", self.daemon_name)

    async def judge_unlisted(self) -> None:
        """The replay the hello announced is applied: what it did not end is LOST."""
        unlisted, self.unlisted = self.unlisted, None
        if unlisted is not None:
            lost = await database_sync_to_async(daemon_unlisted_lose)(unlisted=unlisted)
            if lost:
                logger.info("daemon %s: %d instances not listed at hello nor ended by its journal: LOST",
                            self.daemon_name, len(lost))

    async def send_ack(self, echo: Any = None) -> None:
        self.last_ack = time.monotonic()
        frame: dict[str, Any] = {"type": "ack", "seq": self.acked}
        if isinstance(echo, (int, float)):
            frame["t"] = echo
        await self.send_json(frame)

    async def refuse(self, reason: str) -> None:
        self.closed = True
        await self.send_json({"type": "refused", "reason": reason})
        await self.close(code=CLOSE_REFUSED)

    async def on_hello(self, content: dict[str, Any]) -> None:
        if content.get("type") != "hello":
            await self.refuse("expected hello")
            return
        accepted = await database_sync_to_async(hello_accept)(
            content=content, peer=self._peer(), channel_name=self.channel_name)
        result = accepted.result
        if result is None:
            await self.refuse(accepted.refusal)
            return
        self.daemon_id, self.daemon_name = result.daemon_id, result.name
        await self.channel_layer.group_add(daemon_group(result.daemon_id), self.channel_name)
        if result.previous_channel:
            close: DaemonCloseMessage = {"type": "daemon.close", "reason": "replaced by a new connection"}
            await self.channel_layer.send(result.previous_channel, close)
        self.acked = result.acked
        if isinstance(content.get("probe"), dict):  # who it can reach, who reaches it (issue 24): queued
            # beside the welcome, never before it (Redis or the broker may be slow); the round runs
            # reachability.SOON later, when the daemon reads commands
            self.probe_queueing = asyncio.create_task(database_sync_to_async(reachability_probe_soon, **OFF_THREAD)(
                involving=[result.daemon_id]))
        await self.send_json({"type": "welcome", "daemon": result.daemon_id, "session": result.session,
                              "heartbeat": settings.SPLAYLAB_HEARTBEAT, "acked": result.acked,
                              "dead_after": settings.SPLAYLAB_DAEMON_DEAD_AFTER,
                              "blacklist": accepted.blacklist,
                              **relay_welcome(result.daemon_id, content.get("version"))})
        self.last_frame = time.monotonic()  # the hello may have waited long on a busy database
        self.watchdog = asyncio.create_task(self.watch())
        for job_id in result.stale_jobs:  # runs there, but the controller gave up on it
            await self.send_json({"type": "stop", "ref": uuid.uuid4().hex, "job": job_id})
        for job_id, ports in result.stale_ports.items():  # nodes replaced meanwhile
            await self.send_json({"type": "free", "ref": uuid.uuid4().hex, "job": job_id, "ports": ports})
        logger.info("daemon %s %s session %s at %s", result.name,
                    "resumed" if result.resumed else "started", result.session, accepted.address)
        self.unlisted = result.unlisted
        if self.unlisted is not None and self.unlisted.replay_until <= self.acked:
            await self.judge_unlisted()  # nothing to replay (or an older daemon): judge now

    async def watch(self) -> None:
        """Close a link silent for dead_after seconds: TCP may take minutes to notice."""
        dead_after = settings.SPLAYLAB_DAEMON_DEAD_AFTER
        while True:
            await asyncio.sleep(min(1.0, dead_after / 4))
            silent = time.monotonic() - self.last_frame
            if silent > dead_after:
                logger.warning("daemon %s silent for %.1f s: closing its link", self.daemon_name, silent)
                # OFFLINE first: closing a link whose peer is gone waits for a close handshake
                # that never comes (the server's close_timeout, twice: 20 s and more), and the
                # server may never report it either.
                await self.disconnect(1006)
                await self.close()
                return

    async def on_heartbeat(self, content: dict[str, Any]) -> None:
        for key in ("load", "rtt_ms"):
            value = content.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self.health[key] = float(value)
        if isinstance(content.get("relay"), bool):
            self.relay_up = content["relay"]
        await self.send_ack(echo=content.get("t"))

    async def on_availability(self, content: dict[str, Any]) -> None:
        await database_sync_to_async(daemon_availability_set)(
            daemon_id=self.daemon_id, available=bool(content.get("available")),
            reason=str(content.get("reason") or ""))

    async def on_reply(self, content: dict[str, Any]) -> None:
        ref = str(content.get("ref"))
        reply_to = self.pending.pop(ref, None)
        if reply_to is None:
            return  # fire-and-forget command, or a reply after the task gave up
        message: DaemonReplyMessage = {"type": "daemon.reply", "daemon": self.daemon_id or 0,
                                       "ref": ref, "reply": content}
        await self.channel_layer.send(reply_to, message)

    async def on_log(self, content: dict[str, Any]) -> None:
        job_id = content.get("job")
        lines = content.get("lines")
        if not isinstance(job_id, int) or isinstance(job_id, bool) or not isinstance(lines, list) or not lines:
            return
        nodes, stored = await database_sync_to_async(log_frame_ingest, **OFF_THREAD)(
            daemon_id=self.daemon_id, job_id=job_id, nodes=self.nodes.get(job_id), lines=lines)
        if nodes:
            self.nodes[job_id] = nodes
        # The live view is best effort (the database is the truth): a publish that fails is
        # not a reason to process the frame again.
        with contextlib.suppress(RedisError, OSError):
            await metric_chunks_publish(job_id, stored.chunks)
            await log_lines_publish(job_id, stored.lines)

    async def on_logs(self, content: dict[str, Any]) -> None:
        """A tick's lines of several jobs: stored in one hop to a thread, published per job."""
        batches = content.get("batches")
        if not isinstance(batches, list) or not batches:
            return
        done = await database_sync_to_async(logs_frame_ingest, **OFF_THREAD)(
            daemon_id=self.daemon_id, batches=batches, nodes_of=self.nodes)
        for batch in done:
            if batch.nodes:
                self.nodes[batch.job_id] = batch.nodes
            with contextlib.suppress(RedisError, OSError):  # best effort, as on_log
                await metric_chunks_publish(batch.job_id, batch.stored.chunks)
                await log_lines_publish(batch.job_id, batch.stored.lines or batch.notes)

    async def on_instance(self, content: dict[str, Any]) -> None:
        await database_sync_to_async(instance_frame_apply)(daemon_id=self.daemon_id, content=content)

    # Channel-layer handlers (type "daemon.command" → daemon_command).
    async def daemon_command(self, event: DaemonCommandMessage) -> None:
        command = event["command"]
        self.pending[str(command["ref"])] = event["reply_to"]
        await self.send_json(command)

    async def daemon_close(self, event: DaemonCloseMessage) -> None:
        await self.close(code=CLOSE_REPLACED)

    async def daemon_revoke(self, event: DaemonRevokeMessage) -> None:
        """Its key was revoked or rotated: refused at once, and it must not come back."""
        await self.refuse(event["reason"])

    async def disconnect(self, code: int) -> None:
        self.hello_timer.cancel()
        if self.watchdog is not None and self.watchdog is not asyncio.current_task():
            self.watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.watchdog
        self.closed = True
        if self.daemon_id is not None:
            daemon_id, self.daemon_id = self.daemon_id, None  # once, whoever calls first
            try:
                await self.channel_layer.group_discard(daemon_group(daemon_id), self.channel_name)
                await database_sync_to_async(daemon_disconnect)(daemon_id=daemon_id,
                                                                channel_name=self.channel_name,
                                                                acked=self.acked, **self.health)
            except AWAY as exc:  # its next hello sets the row right
                logger.warning("daemon %s: recording its disconnection failed (%s)", daemon_id, exc)
