"""Messages to the `job-<id>` group; `type` names the JobConsumer method and is what the
browser receives (docs/architecture.md, "Browser live view").

Log lines and metric chunks are the flood: their browser JSON is encoded once per batch by the
publisher (`browser_text`) and relayed verbatim by every subscriber's JobConsumer, instead of
each of the 100 subscribers decoding and re-encoding the same batch."""
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


class MetricChunksMessage(TypedDict):
    type: Literal["metric.chunks"]
    job_id: int
    text: str  # browser JSON: {"type": "metric.chunks", "chunks": [metrics.services.MetricChunkDict, ...]}


class ChurnEventsMessage(TypedDict):
    type: Literal["churn.events"]
    job_id: int
    events: list  # jobs.serializers.ChurnEventOutputSerializer dicts


def browser_text(payload: dict[str, Any]) -> str:
    """The text frame the browser gets; compact separators: the flood's bytes count."""
    return json.dumps(payload, separators=(",", ":"))


def log_lines_message(job_id: int, lines: list[LogLineDict]) -> LogLinesMessage:
    return {"type": "log.lines", "job_id": job_id, "text": browser_text({"type": "log.lines", "lines": lines})}


def metric_chunks_message(job_id: int, chunks: list[Any]) -> MetricChunksMessage:
    return {"type": "metric.chunks", "job_id": job_id,
            "text": browser_text({"type": "metric.chunks", "chunks": chunks})}
