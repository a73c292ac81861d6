"""The one place that talks to the `job-<id>` group (live job page), on the "live" channel layer
(settings CHANNEL_LAYERS: Redis pub/sub, one PUBLISH per message whatever the number of viewers);
daemon commands keep the default layer."""
from __future__ import annotations

import functools
import logging

import redis
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
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


@functools.cache
def _redis() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL)  # its pool reconnects after a fork


def job_watched(job_id: int) -> bool:
    """Whether a web process has a viewer of the job: the subscribers of the group's pub/sub
    channel (channels_redis.pubsub names it PREFIX__group__GROUP). A job.state costs a fetch of
    the job with its instances and a serialization, ~10 ms of CPU, for every state of every job;
    most jobs a class runs have no page open at each change (bench/class_load.py). A page that
    subscribes after this check reads the job itself once subscribed (JobConsumer.connect), so it
    misses no state. Redis unreachable: watched (the publish then fails as before)."""
    prefix = settings.CHANNEL_LAYERS[LIVE_VIEW_LAYER]["CONFIG"]["prefix"]
    try:
        [(_, count)] = _redis().pubsub_numsub(f"{prefix}__group__{job_group(job_id)}")
    except redis.RedisError:
        return True
    return count > 0


def job_state_publish(job_id: int) -> None:
    """Publish the job as committed (after the surrounding transaction, if any), when a page
    watches it."""
    def send() -> None:
        from jobs.models import Job
        from jobs.serializers import job_to_dict

        if not job_watched(job_id):
            return
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
