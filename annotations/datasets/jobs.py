"""The dataset job: run a project's queued level sessions with bounded concurrency, then validate.

Each level is an ordinary annotation session run by :func:`annotations.runs.execution.execute_session`
(same workflow, recorder, live page and lease as a single run); the job only bounds how many run at once.
With a language model configured, the job first drafts each categorical column's levels in one request
(:mod:`.drafts`, with the task's context) and each level's run starts from its draft.

The project's status is the job's phase, and only a job (or the sweep, for a dead one) writes it:
``annotating`` while runs are queued or running; ``validating`` while the job composes, validates and
stores each task's sidecar for the current annotations (:func:`.results.store_current`, under a lease:
:mod:`.leases`); ``done`` (or ``failed``) only once they are stored, so a client that waits for ``done``
gets the sidecar at once. A job holds the project's lease for its whole life (:func:`.leases.renew_job`), so
the sweep takes up only a job whose process died. The last job to end validates for all (a run re-queued
after its worker died ends as a job of its own: :func:`finish_job`). It is a task of Django's task
interface, so it runs in the web process when embedded and in a worker when scaled out.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from django_tasks import task

from annotations.datasets.drafts import column_drafts
from annotations.datasets.leases import begin_validating, end_validating, heartbeat, renew_job, renew_validating
from annotations.datasets.results import store_current
from annotations.models import AnnotationSession, DatasetLevel, DatasetProject, JobStatus, SessionStatus
from annotations.runs.broadcasts import broadcast_progress
from annotations.runs.execution import execute_session, model_failure

logger = logging.getLogger(__name__)


def _outcome(project_id: Any) -> tuple[str, str]:
    """The status and error the job ends with, from each level's newest run: ``failed`` when every one failed
    (a model that refused them all), else ``done``; the error says how many failed and the first reason, and
    for how many levels the model failed so that the offline annotator wrote them."""
    newest: dict[Any, tuple[str, str, Any]] = {}
    for level, status, error, notes in AnnotationSession.objects.filter(
            dataset_level__column__task__project_id=project_id).order_by("created_at", "id").values_list(
            "dataset_level_id", "status", "error", "notes"):
        newest[level] = (status, error, notes)
    failed = [error for status, error, _ in newest.values() if status == SessionStatus.FAILED]
    fell_back = [reason for _, _, notes in newest.values() if (reason := model_failure(notes))]
    parts = []
    if fell_back:
        count = len(fell_back)
        parts.append(f"the language model failed for {count} level{'s' if count != 1 else ''} "
                     f"({fell_back[0].splitlines()[0][:300]}); the offline annotator wrote them")
    if failed:
        first = next((error for error in failed if error), "no reason stored").splitlines()[0][:300]
        parts.append(f"{len(failed)} of {len(newest)} level run(s) failed; the first: {first}")
    status = JobStatus.FAILED if failed and len(failed) == len(newest) else JobStatus.DONE
    return status, "; ".join(parts)


def _validate(project_id: Any, attempt: int) -> bool:
    """The validating phase: every task's current sidecar stored, then the outcome written (False when the
    phase was taken from this job meanwhile: a new run's job validates again)."""
    project = DatasetProject.objects.get(pk=project_id)
    with heartbeat(lambda: renew_validating(project_id, attempt)):
        store_current(project)
    status, error = _outcome(project_id)
    return end_validating(project_id, attempt, status=status, error=error)


def fail_job(project_id: Any, error: str) -> None:
    DatasetProject.objects.filter(pk=project_id).update(status=JobStatus.FAILED, error=error,
                                                        validation_lease_expires_at=None)


async def finish_job(project_id: Any) -> bool:
    """The job's last phase, if this is the last job of the project to end: validate, then ``done``.

    All on this thread's database connection (thread-sensitive): the phase takes no second connection from
    a pool (a fresh thread's connection used to be kept for good, and a pool of 5 ran dry). True when this
    call wrote the outcome."""
    attempt = await sync_to_async(begin_validating)(project_id)
    if attempt is None:
        return False  # runs still going (their job ends it) or another job validating
    await broadcast_progress(project_id)  # the page shows "validating"
    written = await sync_to_async(_validate)(project_id, attempt)
    await broadcast_progress(project_id)
    return written


def _project_of(level_id: int) -> Any:
    return DatasetLevel.objects.filter(pk=level_id).values_list("column__task__project_id", flat=True).first()


async def level_run_ended(session: AnnotationSession) -> None:
    """The run-ended hook (:data:`annotations.hooks.RUN_ENDED`): a dataset level's run re-run on its own (its
    job's worker died) ends the job, validating then done, as the job would have if it is the project's last."""
    if session.dataset_level_id is None:
        return
    project_id = await sync_to_async(_project_of)(session.dataset_level_id)
    if project_id is not None:
        await finish_job(project_id)


def end_job(project_id: Any) -> bool:
    """:func:`finish_job` on this thread, for a caller with no loop of its own (the answers' drain): the
    validation runs here, not on a thread that requests or jobs share."""
    attempt = begin_validating(project_id)
    if attempt is None:
        return False
    async_to_sync(broadcast_progress)(project_id)
    written = _validate(project_id, attempt)
    async_to_sync(broadcast_progress)(project_id)
    return written


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
        # The job's lease, for its whole life (drafting the columns starts no level for a while): the sweep
        # takes a job up only once it lapsed (:mod:`.recovery`).
        await sync_to_async(renew_job)(project_id)
        with heartbeat(lambda: renew_job(project_id), name="hedit-job-lease"):
            drafts = await column_drafts(session_ids, concurrency=concurrency, **run_options)
            await asyncio.gather(*(one(sid) for sid in session_ids))
            await broadcast_progress(project_id)  # every level has its run: the page shows them while we validate
            await finish_job(project_id)
    except Exception as exc:
        logger.exception("dataset %s job failed", project_id)
        await sync_to_async(fail_job)(project_id, f"internal error: {type(exc).__name__}: {exc}".splitlines()[0])
        await broadcast_progress(project_id)
        raise
    logger.info("dataset %s job finished: %s", project_id, outcomes)
    return outcomes


@task()
async def run_dataset_task(project_id: str, session_ids: list[str], concurrency: int) -> dict[str, int]:
    return await run_dataset_job(project_id, session_ids, concurrency)
