"""Answered questions, settled off the run slots: the answered levels annotated again, the answered tasks
validated once per burst.

An answer used to queue a dataset job of its own, which re-validated the whole project inside the runs'
two slots (:mod:`annotations.runs.backends`): a lab answering twenty questions held them for minutes and
another user's run waited. Here an answer only notes its level's queued run and its task
(:func:`queue_answer`); one thread of this process (``hedit-answers``, not the runs' pool or turns) drains
each project's notes: it runs the noted levels (the project's concurrency at a time, each from its column's
draft as in the job), and only when no answer is waiting any more validates each answered task once
(:func:`.results.refresh_sidecar`, itself one computation per digest). A burst of answers thus costs one
validation per task, and the project's status and live page are settled once at the end.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import async_to_sync
from django.db import close_old_connections

from annotations.datasets.drafts import column_drafts
from annotations.datasets.results import refresh_sidecar
from annotations.models import FINISHED_STATUSES, AnnotationSession, DatasetProject, DatasetTask, JobStatus
from annotations.runs.broadcasts import broadcast_progress
from annotations.runs.execution import execute_session
from annotations.runs.runtime import server_loop

logger = logging.getLogger(__name__)


@dataclass
class _Notes:
    """What a project's answers left to do: the level runs to start and the tasks to validate."""

    sessions: list[str] = field(default_factory=list)
    tasks: set[int] = field(default_factory=set)


_notes: dict[str, _Notes] = {}
_draining: set[str] = set()
_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None


def _launch(project_id: str) -> None:
    """Drain *project_id*'s notes on this process's one answers thread (created at first use)."""
    global _executor
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hedit-answers")
        executor = _executor
    future = executor.submit(_drain_in_thread, project_id)
    future.add_done_callback(_log_failure)


launch: Callable[[str], None] = _launch
"""How a project's notes get drained (tests replace it to drain in their own thread)."""


def queue_answer(project_id: Any, task_id: int, session_id: Any = None) -> None:
    """Note an answer on *task_id* (with its level's queued run, if any); drain the project unless it is."""
    key = str(project_id)
    with _lock:
        notes = _notes.setdefault(key, _Notes())
        if session_id is not None:
            notes.sessions.append(str(session_id))
        notes.tasks.add(int(task_id))
        start = key not in _draining
        _draining.add(key)
    if start:
        launch(key)


def _drain_in_thread(project_id: str) -> None:
    close_old_connections()
    try:
        drain(project_id)
    finally:
        close_old_connections()


def drain(project_id: str) -> None:
    """Run the project's noted level runs, then (with no answer waiting) validate each noted task once."""
    tasks: set[int] = set()
    try:
        while True:
            with _lock:
                notes = _notes.pop(project_id, None)
                if notes is None and not tasks:
                    _draining.discard(project_id)
                    return
            if notes is not None:
                tasks |= notes.tasks
                if notes.sessions:
                    _run(_run_levels(project_id, notes.sessions))
                    continue  # answers that came meanwhile are run before anything is validated
            _validate(project_id, tasks)
            tasks = set()
            _settle(project_id)
    except BaseException:
        with _lock:
            _draining.discard(project_id)
        _settle(project_id)
        raise


async def _run_levels(project_id: str, session_ids: list[str]) -> None:
    project = await DatasetProject.objects.filter(pk=project_id).only("concurrency").afirst()
    concurrency = max(1, project.concurrency if project is not None else 1)
    drafts = await column_drafts(session_ids, concurrency=concurrency)
    gate = asyncio.Semaphore(concurrency)

    async def one(session_id: str) -> None:
        async with gate:
            await execute_session(session_id, draft=drafts.get(session_id))

    await asyncio.gather(*(one(sid) for sid in session_ids))


def _run(coroutine: Any) -> None:
    """Await *coroutine* on the server's loop when there is one (the live pages' channel layer is there), else
    on a loop of this thread; never through the runs' backend, so it takes none of their slots or turns."""
    loop = server_loop()
    if loop is None:
        asyncio.run(coroutine)
        return
    contextvars.Context().run(asyncio.run_coroutine_threadsafe, coroutine, loop).result()


def _validate(project_id: str, tasks: set[int]) -> None:
    for task in DatasetTask.objects.select_related("project").filter(project_id=project_id, pk__in=tasks):
        refresh_sidecar(task.project, task)


def _settle(project_id: str) -> None:
    """The project's status from its runs (annotating while any is unfinished), and its live pages told."""
    try:
        unfinished = AnnotationSession.objects.filter(dataset_level__column__task__project_id=project_id).exclude(
            status__in=FINISHED_STATUSES).exists()
        DatasetProject.objects.filter(pk=project_id, status=JobStatus.ANNOTATING, error="").update(
            status=JobStatus.ANNOTATING if unfinished else JobStatus.DONE)
        async_to_sync(broadcast_progress)(project_id)
    except Exception:
        logger.warning("could not settle dataset %s after its answers", project_id, exc_info=True)


def _log_failure(future: Any) -> None:
    exc = future.exception()
    if exc is not None:
        logger.error("settling answers failed", exc_info=exc)


__all__ = ["drain", "queue_answer"]
