"""The project page's socket: pushes the level counts, and the row of a level that moved, as htmx fragments."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings

from annotations.access import can_edit_project
from annotations.datasets.fragments import counts_fragment, level_fragment
from annotations.datasets.selectors import visible_projects
from annotations.models import DatasetProject
from annotations.runs.broadcasts import dataset_group
from annotations.runs.sockets import ThreadedReadsConsumer

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403


class DatasetConsumer(ThreadedReadsConsumer):
    group: str | None = None
    can_edit = False

    async def connect(self) -> None:
        await self.accept()  # then close with our code: a refused handshake reaches htmx as 1006 and it retries
        opened = await self._project(self.scope["url_route"]["kwargs"]["pk"])
        if isinstance(opened, int):
            await self.close(code=opened)
            return
        self.project = opened
        # Decided once per socket, like the page it serves: a reviewer's rows come without edit forms.
        self.can_edit = can_edit_project(self.scope.get("user"), opened)
        self.group = dataset_group(self.project.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        # Whatever moved between the page render and this connection.
        await self.send(text_data=await database_sync_to_async(counts_fragment)(self.project))

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return None  # the page sends nothing that changes state

    async def dataset_progress(self, event: dict[str, Any]) -> None:
        html = await database_sync_to_async(self._render)(event.get("level_id"))
        await self.send(text_data=html)

    def _render(self, level_id: Any) -> str:
        csrf = self.scope.get("cookies", {}).get(settings.CSRF_COOKIE_NAME, "")
        # The row first: htmx parses the message as one document, and a <tr> after a <div> is dropped.
        row = level_fragment(level_id, csrf, can_edit=self.can_edit) if level_id is not None else ""
        return row + counts_fragment(self.project)

    @database_sync_to_async
    def _project(self, pk: Any) -> DatasetProject | int:
        """The project, or the close code when the socket has no user or may not see it."""
        # The user is read from the session here, on a database thread (see annotations.runs.sockets).
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return CLOSE_UNAUTHENTICATED
        return visible_projects(user).filter(pk=pk).first() or CLOSE_FORBIDDEN
