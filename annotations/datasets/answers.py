"""Answered questions, settled off the run slots: the answered levels annotated again, the answered tasks
validated once per burst.

An answer used to queue a dataset job of its own, which re-validated the whole project inside the runs'
two slots (:mod:`annotations.runs.backends`): a lab answering twenty questions held them for minutes and
another user's run waited. Here an answer only notes its level's queued run and its task
(:func:`queue_answer`); one thread of this process (``hedit-answers``, not the runs' pool or turns) drains
each project's notes: it runs the noted levels (the project's concurrency at a time, each from its column's
draft as in the job), and only when no answer is waiting any more ends as a dataset job does
(:func:`.jobs.end_job`: validating, each task without a current result validated once, then ``done``,
written only with the results stored). A burst of answers thus costs one validation per answered task.

The notes live in this process, but the drain holds the project's lease (:func:`.leases.renew_job`) while
it works: if the process dies, the levels it left queued are handed to a job by the sweep once the lease
lapsed (:func:`.recovery.recover_orphaned_levels`); the embedded server queues them again at start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
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
from annotations.datasets.jobs import end_job, fail_job
from annotations.datasets.leases import heartbeat, renew_job
from annotations.datasets.results import refresh_sidecar
from annotations.models import DatasetProject, DatasetTask, JobStatus
from annotations.runs.broadcasts import broadcast_progress
from annotations.runs.execution import execute_session
from annotations.runs.runtime import server_loop

logger = logging.getLogger(__name__)


@dataclass
class Notes:
    """What a project's answers left to do: the level runs to start and the tasks to validate."""

    sessions: list[str] = field(default_factory=list)
    tasks: set[int] = field(default_factory=set)


_notes: dict[str, Notes] = {}
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
        notes = _notes.setdefault(key, Notes())
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
    """Run the project's noted level runs, then (with no answer waiting) end as a job: :func:`.jobs.end_job`.

    The drain holds the project's lease while it works (:func:`.leases.renew_job`): should its process die,
    the lease lapses and the sweep hands the levels it left queued to a job (:mod:`.recovery`)."""
    tasks: set[int] = set()
    try:
        renew_job(project_id)
        with heartbeat(lambda: renew_job(project_id), name="hedit-answers-lease"):
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
                _finish(project_id, tasks)
                tasks = set()
    except BaseException as exc:
        with _lock:
            _draining.discard(project_id)
        logger.exception("dataset %s: settling its answers failed", project_id)
        fail_job(project_id, f"internal error: {type(exc).__name__}: {exc}".splitlines()[0])
        _broadcast(project_id)
        raise


def _finish(project_id: str, tasks: set[int]) -> None:
    """End as the project's jobs end (validating, every task's current sidecar stored, then ``done``: only
    answered tasks have no current result, so only they are validated). When the project is not annotating
    (a column's answer runs no level), its answered tasks are validated alone; when another job's runs are
    still going, that job ends it."""
    if end_job(project_id):
        return
    status = DatasetProject.objects.filter(pk=project_id).values_list("status", flat=True).first()
    if status in (None, JobStatus.ANNOTATING, JobStatus.VALIDATING):
        return
    for task in DatasetTask.objects.select_related("project").filter(project_id=project_id, pk__in=tasks):
        refresh_sidecar(task.project, task)
    _broadcast(project_id)


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


def _broadcast(project_id: str) -> None:
    try:
        async_to_sync(broadcast_progress)(project_id)
    except Exception:
        logger.warning("could not tell dataset %s's pages", project_id, exc_info=True)


def _log_failure(future: Any) -> None:
    exc = future.exception()
    if exc is not None:
        logger.error("settling answers failed", exc_info=exc)


def pending() -> dict[str, Notes]:
    """A copy of what each project's answers left to do, by project id (a project drained to the end has none)."""
    with _lock:
        return {key: Notes(sessions=list(notes.sessions), tasks=set(notes.tasks)) for key, notes in _notes.items()}


def draining() -> set[str]:
    """The projects whose notes are being drained now (or are about to be: their drain was launched)."""
    with _lock:
        return set(_draining)


def settle(timeout: float) -> None:
    """Wait, at most *timeout* seconds, until the drains already handed to the answers thread have ended: the
    thread runs them one at a time, so a no-op queued behind them runs last (a process about to empty its
    database lets them finish first). A drain still running then is left to run."""
    with _lock:
        executor = _executor
    if executor is not None:
        with contextlib.suppress(Exception):
            executor.submit(lambda: None).result(timeout=timeout)


def reset() -> None:
    """Forget every project's notes and drain marks, and drain on a new answers thread from the next answer on.

    The notes live in this process; a process that runs many projects' worth of answers in turn (the tests)
    starts each from nothing, so a drain left from before (its database since emptied) neither holds the next
    one up nor takes its notes. A drain still running on the old thread ends there.
    """
    global _executor
    with _lock:
        _notes.clear()
        _draining.clear()
        old, _executor = _executor, None
    if old is not None:
        old.shutdown(wait=False)


__all__ = ["Notes", "drain", "draining", "pending", "queue_answer", "reset", "settle"]
