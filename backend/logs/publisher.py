"""The one place that talks to the `job-<id>` group (live job page), on the "live" channel layer
(settings CHANNEL_LAYERS: Redis pub/sub, one PUBLISH per message whatever the number of viewers);
daemon commands keep the default layer."""
from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from .payloads import (ChurnEventsMessage, JobStateMessage, LogLineDict, LogLinesMessage, log_lines_message,
                       metric_chunks_message)

logger = logging.getLogger(__name__)

LIVE_VIEW_LAYER = "live"  # alias in settings.CHANNEL_LAYERS; JobConsumer listens on it


def job_group(job_id: int) -> str:
    return f"job-{job_id}"


def _send(job_id: int, message: JobStateMessage | LogLinesMessage | ChurnEventsMessage) -> None:
    try:
        async_to_sync(get_channel_layer(LIVE_VIEW_LAYER).group_send)(job_group(job_id), message)
    except Exception:  # live view is best effort; the database stays the truth
        logger.exception("publishing %s for job %s failed", message["type"], job_id)


def job_state_publish(job_id: int) -> None:
    """Publish the job as committed (after the surrounding transaction, if any)."""
    def send() -> None:
        from jobs.models import Job
        from jobs.serializers import job_to_dict

        job = Job.objects.select_related("owner").prefetch_related("instances__daemon").get(id=job_id)
        message: JobStateMessage = {"type": "job.state", "job": job_to_dict(job)}
        _send(job_id, message)

    transaction.on_commit(send)


async def log_lines_publish(job_id: int, lines: list[LogLineDict]) -> None:
    """Called from DaemonConsumer, already async. The browser's JSON is encoded here, once per
    batch, not once per subscriber (payloads.py)."""
    if lines:
        await get_channel_layer(LIVE_VIEW_LAYER).group_send(job_group(job_id), log_lines_message(job_id, lines))


async def metric_chunks_publish(job_id: int, chunks: list) -> None:
    """New metric samples for the job page's plots (metrics.services.MetricChunkDict)."""
    if chunks:
        await get_channel_layer(LIVE_VIEW_LAYER).group_send(job_group(job_id), metric_chunks_message(job_id, chunks))


def churn_events_publish(job_id: int, events: list[dict]) -> None:
    """A churn job's nodes went up or down (jobs.serializers.ChurnEventOutputSerializer dicts),
    published once the surrounding transaction commits."""
    if events:
        message: ChurnEventsMessage = {"type": "churn.events", "job_id": job_id, "events": events}
        transaction.on_commit(lambda: _send(job_id, message))
