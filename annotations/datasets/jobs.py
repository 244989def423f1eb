"""The dataset job: run a project's queued level sessions with bounded concurrency.

Each level is an ordinary annotation session run by :func:`annotations.runs.execution.execute_session`
(same workflow, recorder, live page and lease as a single run); the job only bounds how many run at once.
With a language model configured, the job first drafts each categorical column's levels in one request
(:mod:`.drafts`, with the task's context) and each level's run starts from its draft.
Each run tells the project page as it starts and ends; when all have, the job composes, validates and stores
each task's sidecar (:mod:`.results`) and tells the page it is over. It is a task of
Django's task interface, so it runs in the web process when embedded and in a worker when scaled out.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from asgiref.sync import sync_to_async
from django_tasks import task

from annotations.datasets.drafts import column_drafts
from annotations.datasets.results import refresh_project
from annotations.models import FINISHED_STATUSES, AnnotationSession, DatasetProject, JobStatus
from annotations.runs.broadcasts import broadcast_progress
from annotations.runs.execution import execute_session

logger = logging.getLogger(__name__)


def _finish_job(project_id: Any, error: str = "") -> None:
    unfinished = AnnotationSession.objects.filter(dataset_level__column__task__project_id=project_id).exclude(
        status__in=FINISHED_STATUSES).exists()
    status = JobStatus.FAILED if error else (JobStatus.ANNOTATING if unfinished else JobStatus.DONE)
    DatasetProject.objects.filter(pk=project_id).update(status=status, error=error)


def _validate_sidecars(project_id: Any) -> None:
    project = DatasetProject.objects.filter(pk=project_id).first()
    if project is not None:
        refresh_project(project)


async def run_dataset_job(project_id: Any, session_ids: list[str], concurrency: int,
                          **run_options: Any) -> dict[str, int]:
    """Run *session_ids* at most *concurrency* at a time; returns the count of each outcome."""
    gate = asyncio.Semaphore(max(1, concurrency))
    outcomes: dict[str, int] = {}
    drafts: dict[str, Any] = {}

    async def one(session_id: str) -> None:
        # execute_session's own status broadcasts tell the project page as each level starts and ends.
        async with gate:
            session = await execute_session(session_id, draft=drafts.get(session_id), **run_options)
        status = session.status if session is not None else "skipped"
        outcomes[status] = outcomes.get(status, 0) + 1

    try:
        drafts = await column_drafts(session_ids, concurrency=concurrency, **run_options)
        await asyncio.gather(*(one(sid) for sid in session_ids))
        await broadcast_progress(project_id)  # every level has its run: the page shows them while we validate
        # The job's last step: each task's sidecar composed, validated and stored, so pages answer at once.
        await sync_to_async(_validate_sidecars, thread_sensitive=False)(project_id)
    except Exception as exc:
        logger.exception("dataset %s job failed", project_id)
        await sync_to_async(_finish_job)(project_id, f"internal error: {type(exc).__name__}: {exc}".splitlines()[0])
        await broadcast_progress(project_id)
        raise
    await sync_to_async(_finish_job)(project_id)
    await broadcast_progress(project_id)
    logger.info("dataset %s job finished: %s", project_id, outcomes)
    return outcomes


@task()
async def run_dataset_task(project_id: str, session_ids: list[str], concurrency: int) -> dict[str, int]:
    return await run_dataset_job(project_id, session_ids, concurrency)
