"""JobConsumer: the browser's live view of one job on /ws/jobs/<id>/ (session auth).
Permission (jobs.selectors.job_visible: the REST job detail's rule) is checked on connect and
again before relaying messages; the Origin check is splaylab/websocket_origin.py.

Group messages come on the "live" channel layer (publisher.LIVE_VIEW_LAYER) and are queued in
the viewer's outbox (outbox.py); a writer task sends what is pending, merged, at most once per
SPLAYLAB_VIEW_FRAME_SECONDS, so a viewer whose socket is slow gets larger frames, not a queue."""
from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from jobs.models import Job
from jobs.selectors import job_visible
from jobs.serializers import job_to_dict

from .outbox import ViewerOutbox
from .payloads import ChurnEventsMessage, JobStateMessage, LogLinesMessage, MetricChunksMessage, browser_text
from .publisher import LIVE_VIEW_LAYER, job_group

logger = logging.getLogger(__name__)

CLOSE_FORBIDDEN = 4403
CLOSE_TRY_AGAIN_LATER = 1013  # the viewer's backlog passed its bound: the page reconnects and pages in
CLOSE_INTERNAL_ERROR = 1011  # the viewer's writer failed: the page reconnects and pages in


def _job_dict(job_id: int) -> dict[str, Any]:
    job = Job.objects.select_related("owner").prefetch_related("instances__daemon").get(id=job_id)
    return job_to_dict(job)


class JobConsumer(AsyncJsonWebsocketConsumer):
    channel_layer_alias = LIVE_VIEW_LAYER
    job_id: int = 0
    outbox: ViewerOutbox | None = None
    wake: asyncio.Event | None = None
    writer: asyncio.Task | None = None
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
        # Group messages that came meanwhile are queued (the handlers run after connect returns)
        self.outbox = ViewerOutbox(settings.SPLAYLAB_VIEW_BACKLOG_BYTES)
        self.wake = asyncio.Event()
        self.writer = asyncio.create_task(self.write_pending())

    async def disconnect(self, code: int) -> None:
        self.gone = True
        if self.writer is not None:
            self.writer.cancel()
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

    async def write_pending(self) -> None:
        """The writer task: sends what the outbox holds, then waits SPLAYLAB_VIEW_FRAME_SECONDS
        (what arrives meanwhile is merged into the next round). A send waits while the
        browser's socket is full, which is how a slow viewer's batches come to be merged."""
        assert self.outbox is not None and self.wake is not None
        try:
            while not self.gone:
                await self.wake.wait()
                self.wake.clear()
                for frame in self.outbox.take():
                    if not await self.may_relay():
                        return
                    await self.send(text_data=frame)
                await asyncio.sleep(settings.SPLAYLAB_VIEW_FRAME_SECONDS)
        except OSError:  # the browser left while we sent (uvicorn's ClientDisconnected)
            self.gone = True
        except Exception:  # e.g. the permission check's database away: a silent writer would
            # leave the page connected and fed nothing; closed, it reconnects and pages in
            logger.exception("job %s: a live viewer's writer failed: closing it", self.job_id)
            self.gone = True
            await self.close(code=CLOSE_INTERNAL_ERROR)

    async def queued(self) -> None:
        """A message was added to the outbox: wake the writer, or close a viewer whose backlog
        is more than log lines (those are skipped, outbox.py) and beyond the bound."""
        if self.outbox is None or self.wake is None or self.gone:
            return
        if self.outbox.overflowed:
            logger.warning("job %s: a live viewer's backlog passed %d bytes: closing it (the page pages in)",
                           self.job_id, self.outbox.backlog_bytes)
            self.gone = True
            if self.writer is not None:
                self.writer.cancel()
            await self.close(code=CLOSE_TRY_AGAIN_LATER)
            return
        self.wake.set()

    async def job_state(self, event: JobStateMessage) -> None:
        if self.outbox is not None:
            self.outbox.add_frame(browser_text({"type": "job.state", "job": event["job"]}))
            await self.queued()

    async def log_lines(self, event: LogLinesMessage) -> None:
        if self.outbox is not None:
            self.outbox.add_lines(event["text"], event["spans"])
            await self.queued()

    async def metric_chunks(self, event: MetricChunksMessage) -> None:
        if self.outbox is not None:
            self.outbox.add_chunks(event["text"])
            await self.queued()

    async def churn_events(self, event: ChurnEventsMessage) -> None:
        if self.outbox is not None:
            self.outbox.add_frame(browser_text({"type": "churn.events", "events": event["events"]}))
            await self.queued()
