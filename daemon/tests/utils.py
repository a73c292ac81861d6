"""Test helpers: a loopback stand-in for the controller and a real in-process daemon.

FakeController plays the controller's side of the contract in docs/architecture.md
("Daemon ⇄ controller protocol"): it accepts hello, answers welcome or refused (+ close
4001), sends commands with a ref and collects replies, log batches and instance messages;
like the controller it applies each numbered frame (`o`) once and acks every heartbeat.
It stands in for the Django controller only in these daemon tests; the real controller is
tested against the real daemon in /work/main/tests/.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from pathlib import Path
from typing import Any, AsyncIterator, Callable

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from splayd.config import Config, config_from_dict
from splayd.outbox import log_batches
from splayd.server import Server

Message = dict[str, Any]
REPO = Path(__file__).resolve().parents[2]


class FakeController:
    def __init__(self, keys: tuple[str, ...] = ("good-key",), heartbeat: float = 0.2,
                 tls: Any = None) -> None:
        self.keys = keys
        self.tls = tls  # an ssl.SSLContext: serve wss://
        self.heartbeat = heartbeat
        self.hellos: list[Message] = []
        self.messages: list[Message] = []  # everything after the hello, in arrival order
        self.ws: ServerConnection | None = None
        self.connected = asyncio.Event()
        self._changed = asyncio.Condition()
        self._server: Any = None
        self.port = 0
        self.sessions = 0
        self.acked = 0  # the last numbered frame kept (the controller's Daemon.acked_seq)
        self.duplicates = 0  # numbered frames received again and skipped
        self.silent = False  # True: stop acking (a controller that hangs)
        self.last_ack_sent = 0
        self.welcome_extra: Message = {}  # more welcome fields (e.g. "relay")

    @property
    def url(self) -> str:
        return f"{'wss' if self.tls else 'ws'}://127.0.0.1:{self.port}/ws/daemon/"

    async def start(self, port: int = 0) -> None:
        self._server = await serve(self._handler, "127.0.0.1", port, ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop listening and drop the current connection (the controller goes away)."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        self.ws = None
        self.connected.clear()

    async def _handler(self, ws: ServerConnection) -> None:
        hello = json.loads(await ws.recv())
        self.hellos.append(hello)
        await self._notify()
        if hello.get("key") not in self.keys:
            await ws.send(json.dumps({"type": "refused", "reason": "unknown daemon key"}))
            await ws.close(4001, "unknown daemon key")
            return
        self.sessions += 1
        session = hello.get("session") or f"s-{uuid.uuid4().hex[:8]}"
        if not hello.get("session"):
            self.acked = 0
        await ws.send(json.dumps({"type": "welcome", "daemon": 1, "session": session, "heartbeat": self.heartbeat,
                                  "dead_after": 3 * self.heartbeat, "acked": self.acked, **self.welcome_extra}))
        self.ws = ws
        self.connected.set()
        try:
            async for raw in ws:
                msg = json.loads(raw)
                if isinstance(msg.get("o"), int):
                    if msg["o"] <= self.acked:
                        self.duplicates += 1
                        continue
                    self.acked = msg["o"]
                if msg.get("type") == "heartbeat" and not self.silent:
                    await ws.send(json.dumps({"type": "ack", "seq": self.acked, "t": msg.get("t")}))
                    self.last_ack_sent = self.acked
                self.messages.append(msg)
                await self._notify()
        except ConnectionClosed:
            pass  # the daemon dropped a link it found dead
        finally:
            if self.ws is ws:
                self.ws = None
                self.connected.clear()

    async def crash(self) -> None:
        """Die like a controller process killed mid-stream: what arrived after the last ack
        sent is forgotten and the socket is dropped without a close handshake."""
        self.messages = [m for m in self.messages if m.get("o", 0) <= self.last_ack_sent]
        self.acked = self.last_ack_sent
        if self.ws is not None:
            self.ws.transport.abort()

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def wait_until(self, predicate: Callable[[], Any], timeout: float = 5.0) -> Any:
        async def waiter() -> Any:
            async with self._changed:
                while not (result := predicate()):
                    await self._changed.wait()
                return result

        return await asyncio.wait_for(waiter(), timeout)

    async def command(self, kind: str, timeout: float = 5.0, **fields: Any) -> Message:
        await asyncio.wait_for(self.connected.wait(), timeout)
        assert self.ws is not None
        ref = uuid.uuid4().hex
        await self.ws.send(json.dumps({"type": kind, "ref": ref, **fields}))
        return await self.wait_until(
            lambda: next((m for m in self.messages if m.get("type") == "reply" and m.get("ref") == ref), None),
            timeout,
        )

    # views on what arrived
    def of_type(self, kind: str) -> list[Message]:
        return [m for m in self.messages if m.get("type") == kind]

    def states(self, job: int, node: int | None = None) -> list[Message]:
        return [m for m in self.of_type("instance") if m["job"] == job and (node is None or m["node"] == node)]

    def final_state(self, job: int, node: int) -> Message | None:
        done = [m for m in self.states(job, node) if m["state"] != "RUNNING"]
        return done[-1] if done else None

    def lines(self, job: int, node: int | None = None) -> list[Message]:
        return [
            line
            for frame in self.messages
            for m in log_batches(frame)
            if m["job"] == job
            for line in m["lines"]
            if node is None or line["node"] == node
        ]

    async def wait_final(self, job: int, node: int, timeout: float = 5.0) -> Message:
        return await self.wait_until(lambda: self.final_state(job, node), timeout)

    async def deploy(
        self, job: int, code: str, nodes: int = 1, duration: float = 10, max_cpu: int = 5,
        max_mem: int = 128 * 1024 * 1024, **list_extra: Any,
    ) -> list[int]:
        """register + list + start, as the scheduler does; returns the ports."""
        reply = await self.command("register", job=job, count=nodes, max_mem=max_mem, max_cpu=max_cpu, duration=duration)
        assert reply["ok"], reply
        ports = reply["ports"]
        node_list = [{"ip": "127.0.0.1", "port": p} for p in ports]
        reply = await self.command(
            "list", job=job, code=code, filename="app.lua",
            instances=[{"node": k + 1, "port": p} for k, p in enumerate(ports)], nodes=node_list, **list_extra,
        )
        assert reply["ok"], reply
        reply = await self.command("start", job=job)
        assert reply["ok"], reply
        return ports


def make_config(tmp_path: Path, controller: str, **overrides: Any) -> Config:
    data: dict[str, Any] = {
        "name": "test-1",
        "controller": controller,
        "key": "good-key",
        "max_instances": 4,
        "ports": [27100, 27199],
        "max_mem_mb": 128,
        "max_cpu_seconds": 5,
        "work_dir": str(tmp_path / "work"),
    }
    data.update(overrides)
    return config_from_dict(data, base_dir=tmp_path, source="test.toml")


@contextlib.asynccontextmanager
async def running_daemon(config: Config) -> AsyncIterator[Server]:
    """Run a real Server in this event loop; stop it like SIGTERM would on the way out."""
    server = Server(config)
    task = asyncio.create_task(server.serve())
    await asyncio.wait_for(server.started.wait(), 5)
    try:
        yield server
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
