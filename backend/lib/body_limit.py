"""ASGI guard of request bodies, in front of Django (splaylab/asgi.py): a body over the cap is
refused before any of it reaches a request thread, whatever reads it there. A request whose
Content-Length is over `max_bytes` is answered 413 without reading it; a chunked body is
counted as it arrives and cut at `max_bytes` (the app sees a disconnect, the client a 413). Per-endpoint caps, smaller, are the
parsers' (lib.parsers)."""
from __future__ import annotations

import json
from typing import Any, Awaitable, Callable

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers") or ():
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(send: Send, max_bytes: int) -> None:
    body = json.dumps({"detail": f"request body larger than {max_bytes:,} bytes "
                                 f"({max_bytes // 1024 // 1024} MB), the server's limit"}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BodyLimitMiddleware:
    def __init__(self, app: App, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _declared_length(scope)
        if declared is not None and declared > self.max_bytes:
            await _refuse(send, self.max_bytes)
            return
        received = 0
        over = False
        started = False

        async def bounded_receive() -> Message:
            nonlocal received, over
            if over:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    over = True
                    return {"type": "http.disconnect"}  # Django stops reading and answers nothing
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, bounded_receive, tracked_send)
        if over and not started:
            await _refuse(send, self.max_bytes)
