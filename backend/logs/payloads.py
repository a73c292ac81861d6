"""Messages to the `job-<id>` group; `type` names the JobConsumer method and is what the
browser receives (docs/architecture.md, "Browser live view")."""
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
    lines: list[LogLineDict]


class MetricChunksMessage(TypedDict):
    type: Literal["metric.chunks"]
    job_id: int
    chunks: list[Any]  # metrics.services.MetricChunkDict


class ChurnEventsMessage(TypedDict):
    type: Literal["churn.events"]
    job_id: int
    events: list  # jobs.serializers.ChurnEventOutputSerializer dicts
