"""A daemon driven from a test: a WebsocketCommunicator on /ws/daemon/ that says hello with
a real key, the way splayd does."""
from __future__ import annotations

from typing import Any

from channels.testing import WebsocketCommunicator

from splaylab.asgi import application


class FakeSplayd:
    def __init__(self, key: str, *, name: str = "lab", max_instances: int = 10,
                 ports: tuple[int, int] = (20000, 20999), session: str | None = None,
                 instances: list[dict[str, Any]] | None = None) -> None:
        self.ws = WebsocketCommunicator(application, "/ws/daemon/")
        self.hello = {"type": "hello", "name": name, "key": key, "session": session, "version": 1,
                      "ip": "127.0.0.1", "max_instances": max_instances, "ports": list(ports),
                      "instances": instances or [], "sandbox": "bwrap"}
        self.welcome: dict[str, Any] = {}

    async def connect(self) -> dict[str, Any]:
        connected, _ = await self.ws.connect()
        assert connected
        await self.ws.send_json_to(self.hello)
        self.welcome = await self.ws.receive_json_from(timeout=5)
        return self.welcome

    async def expect(self, kind: str, timeout: float = 5) -> dict[str, Any]:
        frame = await self.ws.receive_json_from(timeout=timeout)
        assert frame["type"] == kind, frame
        return frame

    async def reply(self, command: dict[str, Any], **fields: Any) -> None:
        await self.ws.send_json_to({"type": "reply", "ref": command["ref"], "ok": True, **fields})

    async def send(self, frame: dict[str, Any]) -> None:
        await self.ws.send_json_to(frame)

    async def close(self) -> None:
        await self.ws.disconnect()
