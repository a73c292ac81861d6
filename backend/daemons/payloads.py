"""Channel-layer messages between Celery tasks and DaemonConsumer. `type` names the
consumer method (daemon.command → daemon_command)."""
from typing import Any, Literal, TypedDict


class DaemonCommandMessage(TypedDict):
    type: Literal["daemon.command"]
    command: dict[str, Any]  # the frame sent to splayd as-is; carries "ref"
    reply_to: str  # channel from channel_layer.new_channel()


class DaemonReplyMessage(TypedDict):
    type: Literal["daemon.reply"]
    daemon: int
    ref: str
    reply: dict[str, Any]  # the daemon's reply frame (ok, reason, ports, ...)


class DaemonCloseMessage(TypedDict):
    type: Literal["daemon.close"]
    reason: str


class DaemonRevokeMessage(TypedDict):
    type: Literal["daemon.revoke"]
    reason: str  # "daemon key revoked" | "daemon key rotated"
