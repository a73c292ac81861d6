"""Messages waiting to go to the controller, kept across disconnections.

Two bounded queues: `urgent` (command replies, heartbeats) is sent before `queue`
(log batches and instance states, in order). Log lines are batched per job and moved to the
queue every tick (0.1 s, by the server) or at 200 lines. A job's pending lines are always
queued before one of its `instance` messages, so the controller has every line of an
instance when it learns that it ended. When more than MAX_QUEUED_LINES lines wait (a long
disconnection, a log flood) the oldest log batch is dropped, leaving a gap in `seq`;
instance states are never dropped (at most one per instance state change).
"""
from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Any

logger = logging.getLogger("splayd")

Message = dict[str, Any]
BATCH_LINES = 200
MAX_QUEUED_LINES = 50_000  # about 20 MB of pending log lines
MAX_URGENT = 1000


class Outbox:
    def __init__(self, max_lines: int = MAX_QUEUED_LINES, batch_lines: int = BATCH_LINES) -> None:
        self.max_lines = max_lines
        self.queued_lines = 0
        self.batch_lines = batch_lines
        self.urgent: deque[Message] = deque()
        self.queue: deque[Message] = deque()
        self._batches: dict[int, list[Message]] = {}
        self._ready = asyncio.Event()
        self.dropped_lines = 0

    # producers
    def reply(self, msg: Message) -> None:
        if len(self.urgent) >= MAX_URGENT:
            self.urgent.popleft()
        self.urgent.append(msg)
        self._ready.set()

    def log_line(self, job: int, line: Message) -> None:
        batch = self._batches.setdefault(job, [])
        batch.append(line)
        if len(batch) >= self.batch_lines:
            self.flush_job(job)

    def instance(self, msg: Message) -> None:
        self.flush_job(msg["job"])
        self._append(msg)

    def flush_job(self, job: int) -> None:
        lines = self._batches.pop(job, None)
        if lines:
            self._append({"type": "log", "job": job, "lines": lines})

    def flush_logs(self) -> None:
        for job in list(self._batches):
            self.flush_job(job)

    def discard(self, msg_type: str) -> None:
        self.urgent = deque(m for m in self.urgent if m.get("type") != msg_type)

    def _append(self, msg: Message) -> None:
        self.queue.append(msg)
        if msg["type"] == "log":
            self.queued_lines += len(msg["lines"])
        while self.queued_lines > self.max_lines:
            oldest = next(i for i, m in enumerate(self.queue) if m["type"] == "log")
            m = self.queue[oldest]
            del self.queue[oldest]
            self.queued_lines -= len(m["lines"])
            self.dropped_lines += len(m["lines"])
            logger.warning("outbox full: dropped %d log lines of job %s", len(m["lines"]), m["job"])
        self._ready.set()

    # consumer
    def pending(self) -> int:
        return len(self.urgent) + len(self.queue)

    def pop(self) -> Message | None:
        if self.urgent:
            return self.urgent.popleft()
        if self.queue:
            msg = self.queue.popleft()
            if msg["type"] == "log":
                self.queued_lines -= len(msg["lines"])
            return msg
        self._ready.clear()
        return None

    def push_front(self, msg: Message) -> None:
        """Put back a message whose send failed."""
        if msg.get("type") in ("reply", "heartbeat"):
            self.urgent.appendleft(msg)
        else:
            self.queue.appendleft(msg)
            if msg["type"] == "log":
                self.queued_lines += len(msg["lines"])
        self._ready.set()

    async def get(self) -> Message:
        while True:
            msg = self.pop()
            if msg is not None:
                return msg
            await self._ready.wait()
