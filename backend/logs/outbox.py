"""What one live viewer's socket has yet to send (logs.consumers.JobConsumer); pure, no I/O.

The consumer queues every group message here as it arrives and a writer task sends what is
pending, at most one round of frames per SPLAYLAB_VIEW_FRAME_SECONDS. Consecutive flood
messages (log lines, metric chunks) are merged into one frame of each kind instead of one frame
per batch: a viewer that is behind gets fewer, larger frames, and no message is dropped. Other
messages (job state, churn events) keep their place: flood messages before one are sent before
it. Within a run of flood messages the metric chunks go first: the page counts the seqs metric
records took (frontend features/logs/lib/seq-gaps.ts) and must know them before the lines that
skip those seqs.

A viewer whose pending log lines are past `backlog_bytes` when more come (its socket stalls: a
frozen tab, a slow link) has them all dropped and is sent one `log.skipped` frame instead,
naming per node the id and seq ranges to fetch from the REST log (the page does, so nothing is
lost to it). Other frames past the bound set `overflowed`: the consumer closes the socket and
the page reconnects and pages the history in. One message, however large, is always sent."""
from __future__ import annotations

from dataclasses import dataclass, field

from .payloads import (LOG_LINES_HEAD, METRIC_CHUNKS_HEAD, SkippedGap, flood_texts_merge,
                       log_skipped_text)


@dataclass
class _FloodRun:
    """Flood messages received in a row: sent as at most three frames (skipped, chunks, lines)."""
    chunks: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


class ViewerOutbox:
    def __init__(self, backlog_bytes: int) -> None:
        if backlog_bytes < 1:
            raise ValueError(f"backlog_bytes must be at least 1, got {backlog_bytes}")
        self.backlog_bytes = backlog_bytes
        self._items: list[str | _FloodRun] = []  # ready frames and runs of flood messages, in order
        self._line_bytes = 0
        self._other_bytes = 0
        self._overflowed = False
        self._skipped = 0
        self._gaps: dict[int, SkippedGap] = {}  # per node: the union of the dropped ranges
        self._line_spans: list[list[int]] = []  # spans of the pending lines (payloads.log_lines_spans)

    @property
    def pending(self) -> bool:
        return bool(self._items) or self._skipped > 0

    @property
    def overflowed(self) -> bool:
        """A frame other than log lines came while those pending were past the bound: only a
        reconnection helps."""
        return self._overflowed

    def _run(self) -> _FloodRun:
        if not self._items or not isinstance(self._items[-1], _FloodRun):
            self._items.append(_FloodRun())
        run = self._items[-1]
        assert isinstance(run, _FloodRun)
        return run

    def add_lines(self, text: str, spans: list[list[int]]) -> None:
        """A log.lines message (payloads.log_lines_message: its text and spans). Added to a
        backlog of lines already past the bound, it is skipped with them."""
        behind = self._line_bytes > self.backlog_bytes
        self._run().lines.append(text)
        self._line_bytes += len(text)
        self._line_spans.extend(spans)
        if behind:
            self._skip_pending_lines()

    def add_chunks(self, text: str) -> None:
        self._overflowed = self._overflowed or self._other_bytes > self.backlog_bytes
        self._run().chunks.append(text)
        self._other_bytes += len(text)

    def add_frame(self, text: str) -> None:
        """Any other message, already the browser's text: sent in its place, never merged."""
        self._overflowed = self._overflowed or self._other_bytes > self.backlog_bytes
        self._items.append(text)
        self._other_bytes += len(text)

    def _skip_pending_lines(self) -> None:
        for item in self._items:
            if isinstance(item, _FloodRun):
                item.lines.clear()
        for node, first_id, last_id, first_seq, last_seq, count in self._line_spans:
            self._skipped += count
            gap = self._gaps.get(node)
            if gap is None:
                self._gaps[node] = {"node": node, "after_id": first_id - 1, "before_id": last_id + 1,
                                    "from_seq": first_seq, "to_seq": last_seq}
            else:
                gap["after_id"] = min(gap["after_id"], first_id - 1)
                gap["before_id"] = max(gap["before_id"], last_id + 1)
                gap["from_seq"] = min(gap["from_seq"], first_seq)
                gap["to_seq"] = max(gap["to_seq"], last_seq)
        self._line_spans = []
        self._line_bytes = 0

    def take(self) -> list[str]:
        """Every pending frame, in the order to send, and empties the outbox. A skip notice comes
        first: the lines that follow it are newer than the ones it names."""
        frames: list[str] = []
        if self._skipped:
            frames.append(log_skipped_text(self._skipped, sorted(self._gaps.values(), key=lambda g: g["node"])))
            self._skipped, self._gaps = 0, {}
        for item in self._items:
            if isinstance(item, str):
                frames.append(item)
                continue
            if item.chunks:
                frames.append(flood_texts_merge(METRIC_CHUNKS_HEAD, item.chunks))
            if item.lines:
                frames.append(flood_texts_merge(LOG_LINES_HEAD, item.lines))
        self._items, self._line_spans = [], []
        self._line_bytes = self._other_bytes = 0
        self._overflowed = False
        return frames
