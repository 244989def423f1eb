"""The live session socket: replays stored steps after the page's last one, then follows the run.

Every update is an HTML fragment for htmx's ws extension: steps append to ``#progress``, status
updates replace ``#session-status``, ``#usage`` and ``#final-annotation`` by id.  The consumer
tracks the last step it sent and always reads newer steps from the database, so a broadcast
that arrives during the replay, or one that was lost, never makes a duplicate or a gap.

Capacity: broadcasts that arrive while the socket is reading are folded into one more read (a
run's burst of steps costs a watcher one query, not one per step), each read is a single trip to
the database, and reads run on the thread pool rather than Channels' one shared database thread,
which the embedded server's runs and every socket's login also queue on.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from annotations.models import AnnotationSession
from annotations.runs.fragments import status_fragment, step_fragment, usage_fragment
from annotations.runs.recorder import session_group
from annotations.runs.sockets import off_thread
from annotations.selectors import visible_sessions

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
MAX_REPLAY = 1000

STEPS, USAGE, STATUS = "steps", "usage", "status"
# What each broadcast makes the page need; a status update carries the usage panel too.
NEEDS = {"step": {STEPS, USAGE}, "usage": {STATUS}}
EVERYTHING = {STEPS, STATUS}


def _after_seq(query_string: bytes) -> int:
    raw = parse_qs(query_string.decode("latin-1")).get("after", ["0"])[0]
    # isdigit() is true for "²", which int() rejects; a seq also has to fit a database integer.
    if not (raw.isascii() and raw.isdecimal()) or len(raw) > 18:
        return 0
    return int(raw)


class SessionConsumer(AsyncWebsocketConsumer):
    group: str | None = None
    _drainer: asyncio.Task | None = None

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
        self.csrf = self.scope.get("cookies", {}).get(settings.CSRF_COOKIE_NAME, "")
        self.last_seq = _after_seq(self.scope.get("query_string", b""))
        self.pending: set[str] = set()
        # Join before reading so no step stored from here on can slip between the replay and the feed;
        # leave again at once if the user may not see this run.
        self.group = session_group(self.session_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        # Replay, and the status (the run may have finished since the page was rendered), in the same
        # trip to the database as the permission check.
        fragments = await off_thread(self._open)()
        if fragments is None:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        for html in fragments:
            await self.send(text_data=html)

    async def disconnect(self, code: int) -> None:
        if self._drainer is not None:
            self._drainer.cancel()
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # The page never sends anything that changes state; ignore whatever arrives.
        return None

    async def session_event(self, event: dict[str, Any]) -> None:
        # "status" and anything newer (reviews, corrections) may change the final annotation.
        self.pending |= NEEDS.get(event.get("kind", ""), EVERYTHING)
        if self._drainer is None or self._drainer.done():
            self._drainer = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        # One read at a time per socket; whatever arrived meanwhile is read together next.
        while self.pending:
            needs, self.pending = self.pending, set()
            await self._refresh(needs)

    async def _refresh(self, needs: set[str]) -> None:
        fragments, self.last_seq = await off_thread(self._render)(self.last_seq, needs)
        for html in fragments:
            await self.send(text_data=html)

    def _open(self) -> list[str] | None:
        if not visible_sessions(self.user).filter(pk=self.session_id).exists():
            return None
        fragments, self.last_seq = self._render(self.last_seq, EVERYTHING)
        return fragments

    def _render(self, after: int, needs: set[str]) -> tuple[list[str], int]:
        session = AnnotationSession.objects.select_related("user").filter(pk=self.session_id).first()
        if session is None:
            return [], after
        fragments: list[str] = []
        if STEPS in needs:
            steps = list(session.steps.filter(seq__gt=after).order_by("seq")[:MAX_REPLAY])
            fragments += [step_fragment(s, session.schema_version) for s in steps]
            after = steps[-1].seq if steps else after
        if STATUS in needs:
            fragments.append(status_fragment(session, self.user, self.csrf))
        elif USAGE in needs:
            # An annotation step moves the attempt count in the usage panel.
            fragments.append(usage_fragment(session))
        return fragments, after
