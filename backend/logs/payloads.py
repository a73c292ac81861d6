"""Messages to the `job-<id>` group; `type` names the JobConsumer method and is what the
browser receives (docs/architecture.md, "Browser live view").

Log lines and metric chunks are the flood: their browser JSON is encoded once per batch by the
publisher (`browser_text`) and relayed verbatim by every subscriber's JobConsumer, instead of
each of the 100 subscribers decoding and re-encoding the same batch. A viewer that is behind
gets several batches merged into one frame (`flood_texts_merge`, logs/outbox.py), still without
decoding them: the texts are spliced between their fixed head and tail."""
import json
from typing import Any, Literal, TypedDict


class LogLineDict(TypedDict):
    id: int
    node: int
    seq: int
    t: float
    level: str
    text: str


class JobStateMessage(TypedDict):
    type: Literal["job.state"]
    job: dict[str, Any]  # the job as in the REST API, with instances


class LogLinesMessage(TypedDict):
    type: Literal["log.lines"]
    job_id: int
    text: str  # browser JSON: {"type": "log.lines", "lines": [LogLineDict, ...]}
    spans: list[list[int]]  # per node: [node, first id, last id, first seq, last seq, lines]


class MetricChunksMessage(TypedDict):
    type: Literal["metric.chunks"]
    job_id: int
    text: str  # browser JSON: {"type": "metric.chunks", "chunks": [metrics.services.MetricChunkDict, ...]}


class ChurnEventsMessage(TypedDict):
    type: Literal["churn.events"]
    job_id: int
    events: list  # jobs.serializers.ChurnEventOutputSerializer dicts


class SkippedGap(TypedDict):
    """Lines of `node` a viewer was not sent: every stored line of that node with
    after_id < id < before_id (seqs from_seq..to_seq); the page fetches them from the REST log."""
    node: int
    after_id: int
    before_id: int
    from_seq: int
    to_seq: int


LOG_LINES_HEAD = '{"type":"log.lines","lines":['
METRIC_CHUNKS_HEAD = '{"type":"metric.chunks","chunks":['
FLOOD_TAIL = "]}"


def browser_text(payload: dict[str, Any]) -> str:
    """The text frame the browser gets; compact separators: the flood's bytes count."""
    return json.dumps(payload, separators=(",", ":"))


def log_lines_spans(lines: list[LogLineDict]) -> list[list[int]]:
    """Per node, what a batch holds: [node, first id, last id, first seq, last seq, lines]
    (what a viewer that skips the batch is told to fetch instead)."""
    spans: dict[int, list[int]] = {}
    for line in lines:
        span = spans.get(line["node"])
        if span is None:
            spans[line["node"]] = [line["node"], line["id"], line["id"], line["seq"], line["seq"], 1]
        else:
            span[1], span[2] = min(span[1], line["id"]), max(span[2], line["id"])
            span[3], span[4] = min(span[3], line["seq"]), max(span[4], line["seq"])
            span[5] += 1
    return list(spans.values())


def log_lines_message(job_id: int, lines: list[LogLineDict]) -> LogLinesMessage:
    return {"type": "log.lines", "job_id": job_id, "text": browser_text({"type": "log.lines", "lines": lines}),
            "spans": log_lines_spans(lines)}


def metric_chunks_message(job_id: int, chunks: list[Any]) -> MetricChunksMessage:
    return {"type": "metric.chunks", "job_id": job_id,
            "text": browser_text({"type": "metric.chunks", "chunks": chunks})}


def flood_texts_merge(head: str, texts: list[str]) -> str:
    """Several `browser_text`s of one kind (`head`: LOG_LINES_HEAD or METRIC_CHUNKS_HEAD) as one
    frame, items in order, without decoding them: each text is head + items + FLOOD_TAIL."""
    if len(texts) == 1:
        return texts[0]
    for text in texts:
        if not (text.startswith(head) and text.endswith(FLOOD_TAIL)) or len(text) == len(head) + len(FLOOD_TAIL):
            raise ValueError(f"not a non-empty {head!r}...{FLOOD_TAIL!r} text: {text[:60]!r}")
    return head + ",".join(text[len(head):-len(FLOOD_TAIL)] for text in texts) + FLOOD_TAIL


def log_skipped_text(skipped: int, gaps: list[SkippedGap]) -> str:
    """The frame telling a viewer that `skipped` lines were not sent to it (its socket was too
    far behind), and where they are: {"type": "log.skipped", "skipped": N, "gaps": [...]}."""
    return browser_text({"type": "log.skipped", "skipped": skipped, "gaps": gaps})
