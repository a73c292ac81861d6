"""DaemonConsumer: one per connected splayd on /ws/daemon/ (protocol in
docs/architecture.md). It authenticates the hello, forwards `daemon.command` messages from
the channel layer to the socket, relays `reply` frames back to the waiting task, and turns
`log`/`instance`/`heartbeat`/`availability` frames into service calls.

Sessions: numbered frames (`o`) at or below the last one processed are skipped (resent after a
reconnection), the last one processed is acked to the daemon (every heartbeat, and at most
every ACK_EVERY while frames come) and saved with the contact (Daemon.acked_seq, at most every
TOUCH_EVERY), so a new connection, even to a restarted controller, resumes from there. A
watchdog closes a link silent for SPLAYLAB_DAEMON_DEAD_AFTER seconds."""
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

from jobs.models import JobInstance
from jobs.services import instance_update
from logs.publisher import log_lines_publish, metric_chunks_publish
from logs.services import log_lines_ingest
from metrics.services import metric_lines_ingest
from traces.services import LEVELS as TRACE_LEVELS, trace_lines_ingest

from .actions import blacklist_addresses
from .commands import daemon_group
from .payloads import DaemonCloseMessage, DaemonCommandMessage, DaemonReplyMessage, DaemonRevokeMessage
from .services import (
    Contact,
    daemon_authenticate,
    daemon_availability_set,
    daemon_disconnect,
    daemon_hello,
    daemons_touch,
)

logger = logging.getLogger(__name__)

CLOSE_REFUSED = 4001
CLOSE_REPLACED = 4002
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


def _job_nodes(daemon_id: int, job_id: int) -> set[int]:
    return set(JobInstance.objects.filter(job_id=job_id, daemon_id=daemon_id, node__isnull=False)
               .values_list("node", flat=True))


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
        self.watchdog: asyncio.Task[None] | None = None
        self.closed = False
        await self.accept()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None,
                      **kwargs: Any) -> None:
        if text_data:  # binary frames are not part of the protocol: ignore, do not crash
            await super().receive(text_data=text_data, **kwargs)

    @classmethod
    async def decode_json(cls, text_data: str) -> Any:
        try:
            return json.loads(text_data)
        except ValueError:
            return None

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if not isinstance(content, dict) or self.closed:
            return
        self.last_frame = time.monotonic()
        if self.daemon_id is None:
            await self.on_hello(content)
            return
        kind = content.get("type")
        handler = {"heartbeat": self.on_heartbeat, "reply": self.on_reply, "log": self.on_log,
                   "instance": self.on_instance, "availability": self.on_availability,
                   }.get(kind if isinstance(kind, str) else "")
        number = content.get("o")
        if isinstance(number, int) and not isinstance(number, bool):
            if number <= self.acked:
                handler = None  # sent again after a reconnection: already applied
            else:
                self.acked = number
        elif handler is None:
            logger.warning("daemon %s sent unknown frame type %r", self.daemon_name, kind)
        if handler is not None:
            await handler(content)
        CONTACTS.note(Contact(self.daemon_id, self.channel_name, self.acked,
                              self.health.get("load"), self.health.get("rtt_ms")))
        if self.acked and time.monotonic() - self.last_ack >= ACK_EVERY:
            await self.send_ack()

    async def send_ack(self, echo: Any = None) -> None:
        self.last_ack = time.monotonic()
        frame: dict[str, Any] = {"type": "ack", "seq": self.acked}
        if isinstance(echo, (int, float)):
            frame["t"] = echo
        await self.send_json(frame)

    async def refuse(self, reason: str) -> None:
        await self.send_json({"type": "refused", "reason": reason})
        await self.close(code=CLOSE_REFUSED)

    async def on_hello(self, content: dict[str, Any]) -> None:
        if content.get("type") != "hello":
            await self.refuse("expected hello")
            return
        daemon, refusal = await database_sync_to_async(daemon_authenticate)(key=str(content.get("key") or ""))
        if daemon is None:
            await self.refuse(refusal)
            return
        client = self.scope.get("client") or [None]
        result = await database_sync_to_async(daemon_hello)(
            daemon_id=daemon.id, hello=content, channel_name=self.channel_name, ip=client[0])
        self.daemon_id, self.daemon_name = result.daemon_id, result.name
        await self.channel_layer.group_add(daemon_group(result.daemon_id), self.channel_name)
        if result.previous_channel:
            close: DaemonCloseMessage = {"type": "daemon.close", "reason": "replaced by a new connection"}
            await self.channel_layer.send(result.previous_channel, close)
        self.acked = result.acked
        blacklist = await database_sync_to_async(blacklist_addresses)()
        await self.send_json({"type": "welcome", "daemon": result.daemon_id, "session": result.session,
                              "heartbeat": settings.SPLAYLAB_HEARTBEAT, "acked": result.acked,
                              "dead_after": settings.SPLAYLAB_DAEMON_DEAD_AFTER, "blacklist": blacklist})
        self.last_frame = time.monotonic()  # the hello may have waited long on a busy database
        self.watchdog = asyncio.create_task(self.watch())
        for job_id in result.stale_jobs:  # runs there, but the controller gave up on it
            await self.send_json({"type": "stop", "ref": uuid.uuid4().hex, "job": job_id})
        for job_id, ports in result.stale_ports.items():  # nodes replaced meanwhile
            await self.send_json({"type": "free", "ref": uuid.uuid4().hex, "job": job_id, "ports": ports})
        logger.info("daemon %s %s session %s", result.name,
                    "resumed" if result.resumed else "started", result.session)

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
        try:
            job_id = int(content["job"])
        except (KeyError, TypeError, ValueError):
            return
        lines = content.get("lines")
        if not isinstance(lines, list) or not lines:
            return
        nodes = self.nodes.get(job_id)
        if not nodes:
            nodes = await database_sync_to_async(_job_nodes)(self.daemon_id, job_id)
            if nodes:
                self.nodes[job_id] = nodes
        if any(isinstance(ln, dict) and ln.get("level") == "metric" for ln in lines):
            metrics = await database_sync_to_async(metric_lines_ingest)(job_id=job_id, nodes=nodes,
                                                                         raw_lines=lines)
            await metric_chunks_publish(job_id, metrics["chunks"])
            lines = lines + metrics["rejected"]  # kept as warnings that say why
        if any(isinstance(ln, dict) and ln.get("level") in TRACE_LEVELS for ln in lines):
            traces = await database_sync_to_async(trace_lines_ingest)(job_id=job_id, nodes=nodes,
                                                                       raw_lines=lines)
            lines = lines + traces["rejected"]
        stored = await database_sync_to_async(log_lines_ingest)(job_id=job_id, nodes=nodes,
                                                                 raw_lines=lines)
        await log_lines_publish(job_id, stored)

    async def on_instance(self, content: dict[str, Any]) -> None:
        try:
            job_id, node = int(content["job"]), int(content["node"])
            exit_code = None if content.get("exit_code") is None else int(content["exit_code"])
        except (KeyError, TypeError, ValueError):
            return
        await database_sync_to_async(instance_update)(
            daemon_id=self.daemon_id, job_id=job_id, node=node, state=str(content.get("state")),
            exit_code=exit_code, reason=str(content.get("reason") or ""),
            churn=content.get("churn") if isinstance(content.get("churn"), dict) else None)

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
        if self.watchdog is not None and self.watchdog is not asyncio.current_task():
            self.watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.watchdog
        self.closed = True
        if self.daemon_id is not None:
            daemon_id, self.daemon_id = self.daemon_id, None  # once, whoever calls first
            await self.channel_layer.group_discard(daemon_group(daemon_id), self.channel_name)
            await database_sync_to_async(daemon_disconnect)(daemon_id=daemon_id,
                                                            channel_name=self.channel_name,
                                                            acked=self.acked, **self.health)
