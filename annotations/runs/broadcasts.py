"""Live pushes to open pages: a run's page (its session group) and a dataset project's page (its dataset group).

The recorder, the run's start and end, and the dataset job all tell live pages through here; the consumers
join the same groups. A push that fails is logged and dropped: a page missing an update never fails a run
or a job, and a reload replays what is stored.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from annotations.models import AnnotationSession
from annotations.runs.runtime import on_server_loop

logger = logging.getLogger(__name__)


def session_group(session_id: Any) -> str:
    return f"session_{session_id}"


def dataset_group(project_id: Any) -> str:
    return f"dataset_{project_id}"


def _dataset_level_of(session_id: Any) -> tuple[Any, Any] | None:
    return (AnnotationSession.objects.filter(pk=session_id, dataset_level__isnull=False)
            .values_list("dataset_level__column__task__project_id", "dataset_level_id").first())


async def broadcast(session_id: Any, kind: str, **payload: Any) -> None:
    """Tell every live page of this session that something new is stored.

    A status change of a dataset level's run (started, finished, reviewed) also tells its project's page.
    """
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await on_server_loop(layer.group_send(session_group(session_id),
                                              {"type": "session.event", "kind": kind, **payload}))
        if kind == "status":
            level = await sync_to_async(_dataset_level_of)(session_id)
            if level is not None:
                await on_server_loop(layer.group_send(dataset_group(level[0]),
                                                      {"type": "dataset.progress", "level_id": level[1]}))
    except Exception:
        # A live page missing an update must never fail the run; a reload replays from the database.
        logger.warning("could not broadcast %s for session %s", kind, session_id, exc_info=True)


async def broadcast_progress(project_id: Any, *, level_id: Any = None) -> None:
    """Tell the project's live pages that a level moved; they re-read counts (and that level) from the database."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await on_server_loop(layer.group_send(dataset_group(project_id), {"type": "dataset.progress",
                                                                          "level_id": level_id}))
    except Exception:
        # A live page missing an update must never stop the job; a reload shows what is stored.
        logger.warning("could not broadcast progress of dataset %s", project_id, exc_info=True)
