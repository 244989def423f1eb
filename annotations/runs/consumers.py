"""The live session socket: replays stored steps after the page's last one, then follows the run.

Every update is an HTML fragment for htmx's ws extension: steps append to ``#progress``, status
updates replace ``#session-status``, ``#usage`` and ``#final-annotation`` by id.  The consumer
tracks the last step it sent and always reads newer steps from the database, so a broadcast
that arrives during the replay, or one that was lost, never makes a duplicate or a gap.

Capacity: broadcasts that arrive while the socket is reading are folded into one more read (a
run's burst of steps costs a watcher one query, not one per step); the login, the permission check
and the replay are one trip to Channels' database thread, and the handshake waits for none (see
:mod:`annotations.runs.sockets`).
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.conf import settings

from annotations.access import may_see
from annotations.models import AnnotationSession
from annotations.runs.broadcasts import session_group
from annotations.runs.fragments import displayed_steps, status_fragment, step_fragment, usage_fragment
from annotations.runs.sockets import ThreadedReadsConsumer

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
MAX_REPLAY = 1000

STEPS, USAGE, STATUS = "steps", "usage", "status"
# What each broadcast makes the page need; a status update carries the usage panel too.
NEEDS = {"step": {STEPS, USAGE}, "usage": {STATUS}}
EVERYTHING = {STEPS, STATUS}


def after_seq(query_string: bytes) -> int:
    """The last step a reconnecting page already shows (its ``after`` query parameter); 0, a replay from the
    start, for anything that is not a plain number a database integer holds."""
    raw = parse_qs(query_string.decode("latin-1")).get("after", ["0"])[0]
    # isdigit() is true for "²", which int() rejects; a seq also has to fit a database integer.
    if not (raw.isascii() and raw.isdecimal()) or len(raw) > 18:
        return 0
    return int(raw)


class SessionConsumer(ThreadedReadsConsumer):
    group: str | None = None
    _drainer: asyncio.Task | None = None

    async def connect(self) -> None:
        # Accept before closing so the browser gets our close code; a close during the handshake
        # reaches it as 1006, which htmx's ws extension would keep retrying.
        await self.accept()
        if not self.scope.get("cookies", {}).get(settings.SESSION_COOKIE_NAME):
            await self.close(code=CLOSE_UNAUTHENTICATED)  # no login to look up: no need for a thread
            return
        self.session_id = self.scope["url_route"]["kwargs"]["pk"]
        self.csrf = self.scope.get("cookies", {}).get(settings.CSRF_COOKIE_NAME, "")
        self.last_seq = after_seq(self.scope.get("query_string", b""))
        self.pending: set[str] = set()
        # Join before reading so no step stored from here on can slip between the replay and the feed;
        # leave again (on close) if the user may not see this run.
        self.group = session_group(self.session_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        # The login, the permission check, the replay and the status (the run may have finished since
        # the page was rendered): one trip to a database thread.
        opened = await database_sync_to_async(self._open)()
        if isinstance(opened, int):
            await self.close(code=opened)
            return
        for html in opened:
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
        fragments, self.last_seq = await database_sync_to_async(self._render)(self.last_seq, needs)
        for html in fragments:
            await self.send(text_data=html)

    def _open(self) -> list[str] | int:
        """The replay, or the close code when the socket has no user or may not see the run."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return CLOSE_UNAUTHENTICATED
        self.user = user
        # One read loads the run for the permission check and the replay alike (sockets are many).
        session = self._load()
        if session is None or not may_see(user, session):
            return CLOSE_FORBIDDEN
        fragments, self.last_seq = self._fragments(session, self.last_seq, EVERYTHING)
        return fragments

    def _load(self) -> AnnotationSession | None:
        return AnnotationSession.objects.select_related("user").filter(pk=self.session_id).first()

    def _render(self, after: int, needs: set[str]) -> tuple[list[str], int]:
        session = self._load()
        if session is None:
            return [], after
        return self._fragments(session, after, needs)

    def _fragments(self, session: AnnotationSession, after: int, needs: set[str]) -> tuple[list[str], int]:
        fragments: list[str] = []
        if STEPS in needs:
            steps = list(displayed_steps(session, after)[:MAX_REPLAY])
            fragments += [step_fragment(s, session.schema_version) for s in steps]
            after = steps[-1].seq if steps else after
        if STATUS in needs:
            fragments.append(status_fragment(session, self.user, self.csrf))
        elif USAGE in needs:
            # An annotation step moves the attempt count in the usage panel.
            fragments.append(usage_fragment(session))
        return fragments, after
