"""The live session socket: replays stored steps after the page's last one, then follows the run.

Every update is an HTML fragment for htmx's ws extension: steps append to ``#progress``, status
updates replace ``#session-status``, ``#usage`` and ``#final-annotation`` by id.  The consumer
tracks the last step it sent and always reads newer steps from the database, so a broadcast
that arrives during the replay, or one that was lost, never makes a duplicate or a gap.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from annotations.models import AnnotationSession
from annotations.runs.fragments import status_fragment, step_fragment, usage_fragment
from annotations.runs.recorder import session_group
from annotations.selectors import visible_sessions

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
MAX_REPLAY = 1000


def _after_seq(query_string: bytes) -> int:
    raw = parse_qs(query_string.decode("latin-1")).get("after", ["0"])[0]
    # isdigit() is true for "²", which int() rejects; a seq also has to fit a database integer.
    if not (raw.isascii() and raw.isdecimal()) or len(raw) > 18:
        return 0
    return int(raw)


class SessionConsumer(AsyncWebsocketConsumer):
    group: str | None = None

    async def connect(self) -> None:
        # Accept before closing so the browser gets our close code; a close during the handshake
        # reaches it as 1006, which htmx's ws extension would keep retrying.
        await self.accept()
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.user = user
        self.session_id = self.scope["url_route"]["kwargs"]["pk"]
        if not await self._may_see():
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.last_seq = _after_seq(self.scope.get("query_string", b""))
        # Join before reading so no step stored from here on can slip between the replay and the feed.
        self.group = session_group(self.session_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self._send_new_steps()
        # The run may have finished between the page render and this connection.
        await self._send_status()

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # The page never sends anything that changes state; ignore whatever arrives.
        return None

    async def session_event(self, event: dict[str, Any]) -> None:
        kind = event.get("kind")
        if kind == "step":
            await self._send_new_steps()
            # An annotation step moves the attempt count in the usage panel.
            await self._send_usage()
        elif kind == "usage":
            await self._send_status()
        else:
            # "status" and anything newer (reviews, corrections) may change the final annotation.
            await self._send_new_steps()
            await self._send_status()

    @database_sync_to_async
    def _may_see(self) -> bool:
        return visible_sessions(self.user).filter(pk=self.session_id).exists()

    async def _send_new_steps(self) -> None:
        fragments, last = await self._render_steps(self.last_seq)
        for html in fragments:
            await self.send(text_data=html)
        self.last_seq = last

    async def _send_usage(self) -> None:
        html = await self._render_usage()
        if html:
            await self.send(text_data=html)

    async def _send_status(self) -> None:
        html = await self._render_status()
        if html:
            await self.send(text_data=html)

    @database_sync_to_async
    def _render_steps(self, after: int) -> tuple[list[str], int]:
        session = AnnotationSession.objects.only("schema_version").filter(pk=self.session_id).first()
        if session is None:
            return [], after
        steps = list(session.steps.filter(seq__gt=after).order_by("seq")[:MAX_REPLAY])
        return [step_fragment(s, session.schema_version) for s in steps], (steps[-1].seq if steps else after)

    @database_sync_to_async
    def _render_usage(self) -> str:
        session = AnnotationSession.objects.filter(pk=self.session_id).first()
        return usage_fragment(session) if session is not None else ""

    @database_sync_to_async
    def _render_status(self) -> str:
        session = AnnotationSession.objects.select_related("user").filter(pk=self.session_id).first()
        if session is None:
            return ""
        csrf = self.scope.get("cookies", {}).get(settings.CSRF_COOKIE_NAME, "")
        return status_fragment(session, self.user, csrf)
