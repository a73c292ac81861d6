"""Messages waiting to go to the controller, journaled on disk until it acknowledges them.

Two streams. `urgent` (command replies, heartbeats, availability) lives in memory and goes
first: it only means something on the current connection. Everything else (`log` batches and
`instance` states) is numbered (`o`, from 1, +1 per frame, never reused) and appended to the
journal, append-only segment files in `journal_dir`, before it is sent. The controller acks the
last number it processed; acked segments are deleted. After a reconnection `rewind(acked)`
resends what lies above the controller's `acked`, in order, reading back from disk
(docs/architecture.md, "Sessions"). So a cut link or a controller restart loses nothing and
the controller can skip what it already has.

Log lines are batched per job and journaled every tick (0.1 s, by the server), at 200
lines or at 1 MB of text; a job's pending lines are always journaled before one of its `instance` frames, so the
controller has every line of an instance when it learns that it ended. A tick journals every
job's pending lines as one frame: `log` when one job has lines, else `logs` with a batch per job
(a class of 100 jobs printing once a second made 200 one-line frames a second, each a database
transaction on the controller). When the journal grows
past `max_bytes` (a very long outage, a log flood) its oldest segment is dropped: its log lines
are counted in `dropped_lines` and leave a gap in `seq`; its `instance` frames are journaled
again (renumbered), never dropped. The frames not yet sent are also kept in memory (`tail`, at
most TAIL_MAX) so a daemon that keeps up never reads the disk.
"""
from __future__ import annotations

import asyncio
import json
import logging
import tempfile
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger("splayd")

Message = dict[str, Any]
LOG_FRAMES = ("log", "logs")


def log_batches(msg: Message) -> list[Message]:
    """The {job, lines} batches a frame carries: one for `log`, several for `logs`."""
    if msg.get("type") == "log":
        return [msg]
    if msg.get("type") == "logs":
        return list(msg.get("batches") or ())
    return []
BATCH_LINES = 200
BATCH_BYTES = 1024 * 1024  # a batch is sent once its text reaches this: frames stay far below
# the websocket's 16 MB, whatever the line cap (JSON may escape a byte as six characters)
MAX_BYTES = 256 * 1024 * 1024
SEGMENT_BYTES = 1024 * 1024
MAX_URGENT = 1000
TAIL_MAX = 1000  # unsent frames also held in memory


@dataclass
class Segment:
    path: Path
    first: int
    last: int
    size: int


class Journal:
    """Numbered frames in append-only JSON-lines segments named by their first number."""

    def __init__(self, directory: Path, max_bytes: int, segment_bytes: int) -> None:
        self.dir = directory
        self.max_bytes = max_bytes
        self.segment_bytes = segment_bytes
        self.dir.mkdir(parents=True, exist_ok=True)
        self.segments: list[Segment] = []
        self.dropped_lines = 0
        self._file: Any = None  # open for append: the last segment
        self.next_o = 1
        for path in sorted(self.dir.glob("seg-*.jsonl")):  # frames of an earlier run: resend them
            numbers = [m["o"] for m in self._read(path)]
            if not numbers:
                path.unlink()
                continue
            self.segments.append(Segment(path, numbers[0], numbers[-1], path.stat().st_size))
            self.next_o = numbers[-1] + 1

    @staticmethod
    def _read(path: Path) -> Iterator[Message]:
        try:
            with path.open("rb") as f:
                for raw in f:
                    try:
                        msg = json.loads(raw)
                    except ValueError:
                        return  # a torn last line (the daemon died mid-write)
                    if isinstance(msg, dict) and isinstance(msg.get("o"), int):
                        yield msg
        except FileNotFoundError:
            return  # dropped or acked meanwhile

    @property
    def first_o(self) -> int:
        return self.segments[0].first if self.segments else self.next_o

    @property
    def size(self) -> int:
        return sum(s.size for s in self.segments)

    def append(self, msg: Message) -> int:
        o = msg["o"] = self.next_o
        self.next_o += 1
        data = (json.dumps(msg, separators=(",", ":")) + "\n").encode()
        seg = self.segments[-1] if self.segments and self._file is not None else None
        if seg is None or seg.size + len(data) > self.segment_bytes:
            self._close()
            seg = Segment(self.dir / f"seg-{o:015d}.jsonl", o, o, 0)
            self.segments.append(seg)
            self._file = seg.path.open("ab")
        self._file.write(data)
        self._file.flush()  # the sender may read it back from disk at once
        seg.last, seg.size = o, seg.size + len(data)
        if self.size > self.max_bytes and len(self.segments) > 1:
            self._drop_oldest()
        return o

    def _close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _drop_oldest(self) -> None:
        seg = self.segments.pop(0)
        frames = list(self._read(seg.path))
        seg.path.unlink(missing_ok=True)
        lines = sum(len(b.get("lines") or ()) for m in frames for b in log_batches(m))
        self.dropped_lines += lines
        logger.warning("outbox journal over %d MB: dropped %d log lines (frames %d-%d)",
                       self.max_bytes // (1024 * 1024), lines, seg.first, seg.last)
        for m in frames:  # instance states are never dropped
            if m.get("type") not in LOG_FRAMES:
                self.append({k: v for k, v in m.items() if k != "o"})

    def read_from(self, o: int) -> Iterator[Message]:
        """Frames numbered o and above, in order (those dropped meanwhile are skipped)."""
        for seg in list(self.segments):
            if seg.last < o:
                continue
            for msg in self._read(seg.path):
                if msg["o"] >= o:
                    o = msg["o"] + 1
                    yield msg

    def trim(self, acked: int) -> None:
        while self.segments and self.segments[0].last <= acked:
            seg = self.segments.pop(0)
            if not self.segments:
                self._close()
            seg.path.unlink(missing_ok=True)

    def close(self) -> None:
        self._close()


class Outbox:
    def __init__(self, batch_lines: int = BATCH_LINES, journal_dir: Path | None = None,
                 max_bytes: int = MAX_BYTES, segment_bytes: int = SEGMENT_BYTES) -> None:
        self._tmp = None
        if journal_dir is None:  # tests and tools: a private journal removed with the object
            self._tmp = tempfile.TemporaryDirectory(prefix="splayd-outbox-")
            journal_dir = Path(self._tmp.name)
        self.journal = Journal(Path(journal_dir), max_bytes, segment_bytes)
        self.batch_lines = batch_lines
        self.urgent: deque[Message] = deque()
        self.tail: deque[Message] = deque()  # unsent numbered frames, contiguous, newest last
        self._batches: dict[int, list[Message]] = {}
        self._batch_bytes: dict[int, int] = {}  # about the text a batch holds
        self._disk: tuple[int, Iterator[Message]] | None = None  # (next o it yields, reader)
        self._ready = asyncio.Event()
        self.send_o = self.journal.first_o  # next numbered frame to send
        self.acked = 0

    @property
    def dropped_lines(self) -> int:
        return self.journal.dropped_lines

    # producers
    def reply(self, msg: Message) -> None:
        if len(self.urgent) >= MAX_URGENT:
            self.urgent.popleft()
        self.urgent.append(msg)
        self._ready.set()

    def log_line(self, job: int, line: Message) -> None:
        batch = self._batches.setdefault(job, [])
        batch.append(line)
        size = self._batch_bytes.get(job, 0) + len(line.get("text") or "") + 64
        self._batch_bytes[job] = size
        if len(batch) >= self.batch_lines or size >= BATCH_BYTES:
            self.flush_job(job)

    def instance(self, msg: Message) -> None:
        self.flush_job(msg["job"])
        self._append(msg)

    def flush_job(self, job: int) -> None:
        lines = self._batches.pop(job, None)
        self._batch_bytes.pop(job, None)
        if lines:
            self._append({"type": "log", "job": job, "lines": lines})

    def flush_logs(self) -> None:
        """Every job's pending lines, as one frame (see the module's docstring)."""
        if len(self._batches) <= 1:
            for job in list(self._batches):
                self.flush_job(job)
            return
        batches = [{"job": job, "lines": lines} for job, lines in self._batches.items() if lines]
        self._batches.clear()
        self._batch_bytes.clear()
        if batches:
            self._append({"type": "logs", "batches": batches})

    def discard(self, msg_type: str) -> None:
        self.urgent = deque(m for m in self.urgent if m.get("type") != msg_type)

    def _append(self, msg: Message) -> None:
        self.journal.append(msg)
        self.tail.append(msg)
        first = self.journal.first_o
        while self.tail and (len(self.tail) > TAIL_MAX or self.tail[0]["o"] < first):
            self.tail.popleft()  # still on disk, or dropped with its segment
        self._ready.set()

    def last_held(self) -> int:
        """The newest numbered frame still in the journal, 0 when it holds none: hello's
        `outbox_last`. The controller judges the instances the hello does not list only once
        it has applied the frames up to it, so the journal's exits come first."""
        return self.journal.next_o - 1 if self.journal.segments else 0

    # the controller's side
    def ack(self, acked: int) -> None:
        """The controller processed every frame up to `acked`: forget them."""
        if acked > self.acked:
            self.acked = acked
            self.journal.trim(acked)

    def rewind(self, acked: int) -> None:
        """A new connection: the controller has processed up to `acked`; resend the rest."""
        self.ack(acked)
        self.send_o = max(acked + 1, self.journal.first_o)
        self._disk = None
        if self.pending():
            self._ready.set()

    # consumer
    def pending(self) -> int:
        return len(self.urgent) + max(0, self.journal.next_o - self.send_o)

    def pop(self) -> Message | None:
        if self.urgent:
            return self.urgent.popleft()
        msg = self._next_numbered()
        if msg is None:
            self._ready.clear()
            return None
        self.send_o = msg["o"] + 1
        return msg

    def _next_numbered(self) -> Message | None:
        if self.send_o >= self.journal.next_o:
            return None
        while self.tail and self.tail[0]["o"] < self.send_o:
            self.tail.popleft()
        if self.tail and self.tail[0]["o"] == self.send_o:
            self._disk = None
            return self.tail.popleft()
        for _ in range(2):  # a reader made before a new segment began ends early: one more
            if self._disk is None or self._disk[0] != self.send_o:
                self._disk = (self.send_o, self.journal.read_from(self.send_o))
            msg = next(self._disk[1], None)
            if msg is not None:
                self._disk = (msg["o"] + 1, self._disk[1])
                return msg
            self._disk = None
        return None

    def push_front(self, msg: Message) -> None:
        """Put back a message whose send failed (numbered ones are resent from the journal)."""
        if "o" in msg:
            self.send_o = min(self.send_o, msg["o"])
            self._disk = None
        else:
            self.urgent.appendleft(msg)
        self._ready.set()

    async def get(self) -> Message:
        while True:
            msg = self.pop()
            if msg is not None:
                return msg
            await self._ready.wait()

    def close(self) -> None:
        self.journal.close()
        if self._tmp is not None:
            self._tmp.cleanup()
