"""SubmissionsConsumer: a signed-in user's own submissions, on /ws/submissions/ (session auth;
the Origin check is splaylab/websocket_origin.py). It relays the status changes that
grading.live publishes to the user's group; the browser only listens, and reads what changed
through the API. Its first message names whose submissions it brings (the page then knows which
it need not poll often). Anonymous connections are refused before the handshake."""
from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from logs.publisher import LIVE_VIEW_LAYER

from .live import SubmissionStatusMessage, submissions_group

CLOSE_FORBIDDEN = 4403


class SubmissionsConsumer(AsyncJsonWebsocketConsumer):
    channel_layer_alias = LIVE_VIEW_LAYER
    group: str = ""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.group = submissions_group(user.id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"type": "submission.watch", "student": user.username})

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    @classmethod
    async def decode_json(cls, text_data: str) -> Any:
        """What the browser sends is never parsed (it only listens)."""
        return None

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        pass

    async def submission_status(self, event: SubmissionStatusMessage) -> None:
        await self.send_json({"type": "submission.status", "submission": event["submission"]})
