"""JobConsumer: the browser's live view of one job on /ws/jobs/<id>/ (session auth).
Permission (jobs.selectors.job_visible: the REST job detail's rule) is checked on connect and
again before relaying messages; the Origin check is splaylab/websocket_origin.py."""
from __future__ import annotations

import time
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from jobs.models import Job
from jobs.selectors import job_visible
from jobs.serializers import job_to_dict

from .payloads import ChurnEventsMessage, JobStateMessage, LogLinesMessage, MetricChunksMessage
from .publisher import job_group

CLOSE_FORBIDDEN = 4403


def _job_dict(job_id: int) -> dict[str, Any]:
    job = Job.objects.select_related("owner").prefetch_related("instances__daemon").get(id=job_id)
    return job_to_dict(job)


class JobConsumer(AsyncJsonWebsocketConsumer):
    job_id: int = 0
    allowed_until: float = 0.0  # monotonic time until which the last permission check holds
    gone: bool = False  # the browser left; queued group messages are dropped

    async def allowed(self) -> bool:
        """Re-check that the viewer may see the job, at most every SPLAYLAB_VIEW_RECHECK_SECONDS:
        a query per log batch would cost more than the logs themselves under a flood."""
        if time.monotonic() < self.allowed_until:
            return True
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return False
        ok = await database_sync_to_async(job_visible)(user_id=user.id, job_id=self.job_id)
        self.allowed_until = time.monotonic() + settings.SPLAYLAB_VIEW_RECHECK_SECONDS if ok else 0.0
        return ok

    async def connect(self) -> None:
        self.job_id = int(self.scope["url_route"]["kwargs"]["job_id"])
        if not await self.allowed():
            await self.close(code=CLOSE_FORBIDDEN)  # before accept: handshake refused
            return
        await self.channel_layer.group_add(job_group(self.job_id), self.channel_name)
        await self.accept()
        # The current state at once, so the page needs no race-prone extra fetch.
        job = await database_sync_to_async(_job_dict)(self.job_id)
        await self.send_json({"type": "job.state", "job": job})

    async def disconnect(self, code: int) -> None:
        self.gone = True
        if self.job_id:
            await self.channel_layer.group_discard(job_group(self.job_id), self.channel_name)

    @classmethod
    async def decode_json(cls, text_data: str) -> Any:
        """The browser only listens: what it sends is a nudge, never parsed (text that is not
        JSON, or nested too deep for json, cannot crash the consumer)."""
        return None

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if not await self.allowed():
            await self.close(code=CLOSE_FORBIDDEN)
        # Nothing else to do: the browser only listens.

    async def may_relay(self) -> bool:
        """The browser is still there and still allowed (else the socket is closed)."""
        if self.gone:
            return False
        if await self.allowed():
            return True
        await self.close(code=CLOSE_FORBIDDEN)
        return False

    async def relay(self, payload: dict[str, Any]) -> None:
        """Send a group message on to the browser, encoded here."""
        if await self.may_relay():
            await self.send_json(payload)

    async def relay_text(self, text: str) -> None:
        """Send JSON the publisher already encoded, as is (payloads.py: encoded once per batch)."""
        if await self.may_relay():
            await self.send(text_data=text)

    async def job_state(self, event: JobStateMessage) -> None:
        await self.relay({"type": "job.state", "job": event["job"]})

    async def log_lines(self, event: LogLinesMessage) -> None:
        await self.relay_text(event["text"])

    async def metric_chunks(self, event: MetricChunksMessage) -> None:
        await self.relay_text(event["text"])

    async def churn_events(self, event: ChurnEventsMessage) -> None:
        await self.relay({"type": "churn.events", "events": event["events"]})
