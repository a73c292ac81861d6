"""The one path from sync code (Celery tasks) to splayd: commands go through the channel
layer group `daemon-<id>`; DaemonConsumer forwards them on the socket and relays the
daemon's `reply` (same `ref`) to our private `reply_to` channel.

Each call uses its own channel-layer instance: async_to_sync runs a fresh event loop per
call in a worker thread, and a channels_redis layer may only receive() on one loop.
"""
from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import DEFAULT_CHANNEL_LAYER, channel_layers

from .payloads import DaemonCommandMessage


def daemon_group(daemon_id: int) -> str:
    return f"daemon-{daemon_id}"


@dataclass
class Command:
    daemon_id: int
    frame: dict[str, Any]  # {"type": "register", "job": 7, ...}; "ref" is added on send
    ref: str = field(default_factory=lambda: uuid.uuid4().hex)


@dataclass(frozen=True)
class Reply:
    daemon_id: int
    ref: str
    frame: dict[str, Any]
    elapsed: float  # seconds after sending

    @property
    def ok(self) -> bool:
        return bool(self.frame.get("ok"))

    @property
    def reason(self) -> str:
        return str(self.frame.get("reason") or "no reason given")


async def _commands_send(commands: list[Command], timeout: float,
                         enough: Callable[[list[Reply]], bool] | None) -> list[Reply]:
    layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
    try:
        reply_to = await layer.new_channel()
        pending = {c.ref: c for c in commands}
        started = time.monotonic()
        for c in commands:
            message: DaemonCommandMessage = {
                "type": "daemon.command", "command": {**c.frame, "ref": c.ref}, "reply_to": reply_to}
            await layer.group_send(daemon_group(c.daemon_id), message)
        replies: list[Reply] = []
        deadline = started + timeout
        while pending and timeout > 0:
            left = deadline - time.monotonic()
            if left <= 0 or (enough is not None and enough(replies)):
                break
            try:
                message = await asyncio.wait_for(layer.receive(reply_to), left)
            except asyncio.TimeoutError:
                break
            command = pending.pop(str(message.get("ref")), None)
            if command is None:
                continue  # duplicate or stray reply
            replies.append(Reply(command.daemon_id, command.ref, message.get("reply", {}),
                                 time.monotonic() - started))
        return replies
    finally:
        await layer.close_pools()


def commands_send(commands: list[Command], *, timeout: float,
                  enough: Callable[[list[Reply]], bool] | None = None) -> list[Reply]:
    """Send the commands and return the replies in arrival order. Stops at `timeout`, when
    every command answered, or as soon as `enough(replies)` holds. Missing replies are
    simply absent. timeout=0 sends without waiting (fire and forget)."""
    if not commands:
        return []
    return async_to_sync(_commands_send)(commands, timeout, enough)
